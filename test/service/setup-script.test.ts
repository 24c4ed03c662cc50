import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// scripts/setup.sh as `npm start` and `npm test` run it, in a copy of the project's layout
// with `npm`, `apt-get` and `redis-server` replaced by stand-ins on PATH that record how
// they were called: which install each step asks for, and when it asks for none.
const SETUP = fileURLToPath(new URL('../../scripts/setup.sh', import.meta.url));
const LIBRARIES = 'test/traces/libraries';
// Mastra 0.24 cannot share a tree with Mastra 1.x: a project of its own.
const MASTRA_0_24 = 'test/traces/libraries-mastra-0.24';

let dir: string;
let calls: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'aos-setup-'));
  calls = path.join(dir, 'calls.log');
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(SETUP, path.join(dir, 'scripts/setup.sh'));
  for (const project of ['.', LIBRARIES, MASTRA_0_24]) {
    mkdirSync(path.join(dir, project), { recursive: true });
    writeFileSync(path.join(dir, project, 'package-lock.json'), '{}');
  }
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  // The npm stand-in makes the folder a real install would, so the script's record fits.
  const stub = (name: string, body = '') => {
    writeFileSync(path.join(bin, name), `#!/usr/bin/env bash\necho "${name} $*" >> "${calls}"\n${body}`);
    chmodSync(path.join(bin, name), 0o755);
  };
  stub('npm', 'while [ $# -gt 0 ]; do if [ "$1" = --prefix ]; then mkdir -p "$2/node_modules"; fi; shift; done\n');
  stub('apt-get');
  stub('redis-server');
  env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the setup step; the npm and apt-get calls it made. */
function setup(mode: string): string[] {
  rmSync(calls, { force: true });
  execFileSync('bash', [path.join(dir, 'scripts/setup.sh'), mode], { env, stdio: 'pipe' });
  let made = '';
  try {
    made = readFileSync(calls, 'utf8');
  } catch {
    // nothing was called
  }
  return made.split('\n').filter((line) => line.startsWith('npm ') || line.startsWith('apt-get '));
}

describe('scripts/setup.sh', () => {
  it('start installs the production packages of the service only, and asks apt for nothing more once redis-server is there', () => {
    expect(setup('start')).toEqual(['npm install --prefix . --no-audit --no-fund --omit=dev']);
    expect(setup('start')).toEqual([]);
  });

  it('test after start installs the dev packages and the library tests’ projects, then nothing again', () => {
    setup('start');
    const made = setup('test').filter((line) => line.startsWith('npm '));
    expect(made).toEqual([
      'npm install --prefix . --no-audit --no-fund --include=dev',
      `npm install --prefix ${LIBRARIES} --no-audit --no-fund --include=dev`,
      `npm install --prefix ${MASTRA_0_24} --no-audit --no-fund --include=dev`,
    ]);
    expect(setup('test').filter((line) => line.startsWith('npm '))).toEqual([]);
    // A full install serves start as it is: pruning it would only cost the next test run.
    expect(setup('start')).toEqual([]);
  });

  it('installs again when a lock file is newer than the last install', () => {
    setup('test');
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(dir, LIBRARIES, 'package-lock.json'), later, later);
    expect(setup('test').filter((line) => line.startsWith('npm '))).toEqual([`npm install --prefix ${LIBRARIES} --no-audit --no-fund --include=dev`]);
  });

  it('refuses to run without a mode', () => {
    expect(() => setup('')).toThrow(/usage: scripts\/setup.sh start\|test/);
  });
});
