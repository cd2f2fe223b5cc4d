export function firstMatch(groups, wanted) {
  for (const group of groups) {
    if (group.enabled) {
      for (const item of group.items) {
        if (item.visible) {
          if (item.tags) {
            if (item.tags.has(wanted)) {
              return item;
            }
          }
        }
      }
    }
  }
  return null;
}
