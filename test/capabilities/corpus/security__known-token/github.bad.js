export const client = createClient({ token: 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' });
