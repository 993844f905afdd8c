/** The package's version, put in by tsup at build time and by vitest's define in tests. */
declare const __PACKAGE_VERSION__: string;
