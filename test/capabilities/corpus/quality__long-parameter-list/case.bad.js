export function createUser(name, email, age, country, language, newsletter, referrer) {
  return { name, email, age, country, language, newsletter, referrer };
}
