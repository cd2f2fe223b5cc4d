import chalk from 'chalk';
export const shout = (text) => chalk.bold(text);
