export const config = {
  apiKey: 'f3b9c1d27a4e4b8c9d0e1f2a3b4c5d6e',
  endpoint: 'https://api.example.com',
};
