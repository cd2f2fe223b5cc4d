const { S3Client } = require('@aws-sdk/client-s3');
const s3 = new S3Client({ credentials: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY } });
module.exports = { s3 };
