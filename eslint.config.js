// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

const CLIENT_NODE = {
  name: '@kubernetes/client-node',
  message: 'Only src/kube/ talks to @kubernetes/client-node; use its narrow interfaces.',
};
// Loading TypeBox costs a process about 6 MB of RSS (16 MB alone); the controller needs only the
// types derived from the schemas, so code outside the schema files imports them as types.
const TYPEBOX = {
  name: '@sinclair/typebox',
  message:
    'Schemas live in src/api/v1/*.schema.ts; elsewhere import TypeBox types only (import type).',
  allowTypeImports: true,
};

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.local/', 'bench/results/', 'hack/controlplane/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    // Type-aware rules read the types through the TypeScript project service (tsconfig.json).
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // Plain JavaScript (this file, the mocha configs and reporter) is not part of the TS project.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Off: here `async` without `await` is deliberate (fakes and interface methods that must
      // return a Promise and reject, not throw synchronously, when they fail).
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [CLIENT_NODE, TYPEBOX] }],
    },
  },
  {
    // The one adapter module allowed to import the Kubernetes client. A leaf: it imports nothing
    // else of the project but src/util (the consumers own the interfaces it serves;
    // docs/architecture.json).
    files: ['src/kube/**/*.ts'],
    ignores: ['src/kube/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [TYPEBOX],
          patterns: [
            {
              group: ['../*', '!../util'],
              message:
                'src/kube is a leaf transport: it imports nothing of the project but src/util.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/kube/**/*.test.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [TYPEBOX] }] },
  },
  {
    // The schemas, the CRD builder and the tools that generate or check the CRDs.
    files: [
      'src/api/v1/*.schema.ts',
      'src/api/v1/schema.ts',
      'src/api/v1/crds.ts',
      '**/*.test.ts',
      'hack/**/*.ts',
    ],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths: [CLIENT_NODE] }] },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        __dirname: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
