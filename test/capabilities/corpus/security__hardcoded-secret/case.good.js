export const config = {
  apiKey: process.env.PAYMENTS_API_KEY,
  endpoint: 'https://api.example.com',
};
