// Checks the workspace's import graph: a package never imports an app, packages form no
// cycle, and every @aos import is declared in the importer's package.json.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
interface Workspace {
  name: string;
  kind: 'app' | 'package';
  dir: string;
  declared: Set<string>;
  imports: Set<string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return entry.endsWith('.ts') ? [full] : [];
  });
}

const workspaces: Workspace[] = [];
for (const kind of ['apps', 'packages'] as const) {
  for (const entry of readdirSync(path.join(root, kind))) {
    const dir = path.join(root, kind, entry);
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const imports = new Set<string>();
    for (const file of sourceFiles(path.join(dir, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(@aos\/[a-z-]+)'/g)) imports.add(match[1]!);
    }
    imports.delete(pkg.name);
    workspaces.push({
      name: pkg.name,
      kind: kind === 'apps' ? 'app' : 'package',
      dir,
      declared: new Set(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })),
      imports,
    });
  }
}

const byName = new Map(workspaces.map((w) => [w.name, w]));
const problems: string[] = [];
for (const w of workspaces) {
  for (const imported of w.imports) {
    const target = byName.get(imported);
    if (!target) problems.push(`${w.name} imports unknown workspace ${imported}`);
    else if (w.kind === 'package' && target.kind === 'app') problems.push(`package ${w.name} imports app ${imported}`);
    if (!w.declared.has(imported)) problems.push(`${w.name} imports ${imported} without declaring it in package.json`);
  }
}

// Depth-first search for a cycle among packages.
const state = new Map<string, 'visiting' | 'done'>();
function visit(name: string, trail: string[]) {
  if (state.get(name) === 'done') return;
  if (state.get(name) === 'visiting') {
    problems.push(`import cycle: ${[...trail.slice(trail.indexOf(name)), name].join(' -> ')}`);
    return;
  }
  state.set(name, 'visiting');
  for (const next of byName.get(name)?.imports ?? []) visit(next, [...trail, name]);
  state.set(name, 'done');
}
for (const w of workspaces) visit(w.name, []);

if (problems.length > 0) {
  console.error(`architecture check failed:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`architecture check: ${workspaces.length} workspaces, no cycles, packages import no app`);
