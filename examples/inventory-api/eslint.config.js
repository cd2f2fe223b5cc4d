// Lint configuration: typescript-eslint's recommended rules.
import tseslint from 'typescript-eslint';

export default tseslint.config(...tseslint.configs.recommended);
