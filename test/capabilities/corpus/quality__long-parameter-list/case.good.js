export function createUser(profile) {
  const { name, email, age, country, language, newsletter, referrer } = profile;
  return { name, email, age, country, language, newsletter, referrer };
}
