export function firstMatch(groups, wanted) {
  const items = groups.filter((group) => group.enabled).flatMap((group) => group.items);
  return items.find((item) => item.visible && item.tags?.has(wanted)) ?? null;
}
