export function getUserName(user) {
  const fullName = `${user.first} ${user.last}`;
  return fullName;
}
export class UserAccount {}
export const MAX_USERS = 100;
