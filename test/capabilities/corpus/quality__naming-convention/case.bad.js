export function Get_user_name(user) {
  const full_name = `${user.first} ${user.last}`;
  return full_name;
}
export class user_account {}
