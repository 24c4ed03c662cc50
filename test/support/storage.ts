import { storageSettings } from '@aos/config';
export { openStorage } from '@aos/storage';

/** Storage settings for the embedded engine under a test's data directory. */
export function storageSettingsForTest(dataDir: string) {
  return storageSettings({ DATA_DIR: dataDir });
}
