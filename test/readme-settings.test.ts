/** The settings tables of the README and docs/configuration.md are the code's: regenerate them with `npx tsx scripts/readme-settings.ts`. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS_TABLE_FILES, withSettingsTable } from '../scripts/readme-settings.js';
import { envOf, SETTING_NAMES } from '../src/preset/settings.js';

describe('the settings table in the documentation', () => {
  it.each(SETTINGS_TABLE_FILES)(
    '%s matches src/preset/settings.ts (run `npx tsx scripts/readme-settings.ts` after changing a setting)',
    async (file) => {
      const text = await readFile(join(import.meta.dirname, '..', file), 'utf8');
      expect(text).toBe(withSettingsTable(text));
      for (const name of SETTING_NAMES) expect(text).toContain(`\`${envOf(name)}\``);
    },
  );
});
