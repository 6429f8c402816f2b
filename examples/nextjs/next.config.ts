import type { NextConfig } from 'next';

const config: NextConfig = {
  // fileconv loads native modules (sharp, better-sqlite3) and converters on demand from its own
  // files: Node loads it from node_modules at run time instead of Next bundling it.
  serverExternalPackages: ['fileconv'],
};

export default config;
