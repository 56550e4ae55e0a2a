// eslint for the pages' JavaScript (static/js): the recommended rules, browser globals, plus the mistakes that
// cost us before (a variable used before it is set, a shadowed name, == against a non-null value).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser },
    },
    rules: {
      "no-shadow": "error",
      "no-use-before-define": ["error", { functions: false, variables: true }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-var": "off",
      "no-unused-vars": ["error", { caughtErrors: "none" }],
      strict: ["error", "function"],
    },
  },
];
