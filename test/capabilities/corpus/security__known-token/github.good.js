export const client = createClient({ token: process.env.GITHUB_TOKEN });
