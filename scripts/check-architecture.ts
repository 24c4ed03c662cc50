// Checks the workspace's import graph and layout: a package never imports an app, packages
// form no cycle, every @aos import is declared in the importer's package.json, no module
// cycle inside a workspace, storage domains import only the domains they name, the
// query routes, their folders and their integration tests are named after URL segments, and
// the writer and OTLP keep their modules in rooms.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

// Module cycles inside each workspace, type-only imports included: a cycle of types is
// still two modules that cannot be understood apart.
const RELATIVE_IMPORT = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
function relativeImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)].map((m) => path.resolve(path.dirname(file), m[1]!));
}
for (const w of workspaces) {
  const files = sourceFiles(path.join(w.dir, 'src'));
  const graph = new Map(files.map((f) => [f, relativeImports(f)]));
  const seen = new Map<string, 'visiting' | 'done'>();
  const walk = (file: string, trail: string[]) => {
    if (seen.get(file) === 'done') return;
    if (seen.get(file) === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(root, f));
      problems.push(`module cycle: ${cycle.join(' -> ')}`);
      return;
    }
    seen.set(file, 'visiting');
    for (const next of graph.get(file) ?? []) if (graph.has(next)) walk(next, [...trail, file]);
    seen.set(file, 'done');
  };
  for (const f of files) walk(f, []);
}

// Storage: a folder per domain, the connection and its plumbing in client/ (the client, the
// server's HTTP, the embedded engine's threads and insert files, what a refused insert means,
// read budgets), and at the top only migrations and the index. Each domain may import sql/,
// client/ and the domains named here, so the domains form no cycle and a new module lands in
// its room; client/ imports only sql/.
const STORAGE = path.join(root, 'packages/storage/src');
const STORAGE_TOP_FILES = new Set(['migrations.ts', 'migrations.test.ts', 'migrations.sql.test.ts', 'index.ts']);
/** Beside migrations.sql.test.ts: the snapshots of the runner's own statements, no module. */
const STORAGE_TOP_FOLDERS = new Set(['__snapshots__']);
const DOMAIN_IMPORTS: Record<string, readonly string[]> = {
  client: [],
  sql: [],
  traces: ['client'],
  spans: ['client', 'traces'],
  sessions: ['client', 'traces', 'scores'],
  scores: ['client', 'traces'],
  exports: ['client', 'traces'],
  findings: ['client', 'traces'],
  monitors: ['client', 'traces', 'findings'],
  evaluators: ['client', 'traces', 'spans'],
  'project-settings': ['client'],
  retention: ['client', 'traces'],
  keys: ['client'],
  metrics: ['client'],
};
for (const entry of readdirSync(STORAGE)) {
  const full = path.join(STORAGE, entry);
  if (!statSync(full).isDirectory()) {
    if (!STORAGE_TOP_FILES.has(entry)) problems.push(`packages/storage/src/${entry}: storage modules live in a domain folder (or sql/, client/)`);
    continue;
  }
  if (STORAGE_TOP_FOLDERS.has(entry)) continue;
  const allowed = DOMAIN_IMPORTS[entry];
  if (!allowed) {
    problems.push(`packages/storage/src/${entry}/: not a known storage domain (add it to DOMAIN_IMPORTS in scripts/check-architecture.ts)`);
    continue;
  }
  for (const file of sourceFiles(full)) {
    for (const target of relativeImports(file)) {
      const [first, ...rest] = path.relative(STORAGE, target).split(path.sep);
      if (rest.length === 0) {
        problems.push(`${path.relative(root, file)} imports storage's ${first}: a domain reaches nothing at the top`);
      } else if (first !== entry && first !== 'sql' && !allowed.includes(first!)) {
        problems.push(`${path.relative(root, file)} imports the ${first} domain, which ${entry}/ does not name in DOMAIN_IMPORTS`);
      }
    }
  }
}

// Query routes: each mount in app.ts is a folder of routes/ named after its URL segment,
// with its integration tests under the same name (test/<segment>.test.ts or test/<segment>/).
const ROUTES = path.join(root, 'apps/query/src/routes');
const mounted = [...readFileSync(path.join(root, 'apps/query/src/app.ts'), 'utf8').matchAll(/app\.route\('\/([a-z-]+)', (\w+)\(/g)];
const routeFolders = new Set(readdirSync(ROUTES).filter((e) => statSync(path.join(ROUTES, e)).isDirectory()));
for (const entry of readdirSync(ROUTES)) if (!routeFolders.has(entry)) problems.push(`apps/query/src/routes/${entry}: routes live in a folder named after their URL segment`);
for (const [, segment] of mounted) {
  if (!routeFolders.delete(segment!)) problems.push(`/${segment} is mounted in apps/query/src/app.ts but has no folder apps/query/src/routes/${segment}/`);
  const tests = [path.join(root, 'test', `${segment}.test.ts`), path.join(root, 'test', segment!)];
  if (!tests.some((t) => existsSync(t))) problems.push(`/${segment} has no integration test named after it (test/${segment}.test.ts or test/${segment}/)`);
}
for (const folder of routeFolders) problems.push(`apps/query/src/routes/${folder}/ is not mounted in apps/query/src/app.ts`);

// Rooms: the writer's modules in a folder by job, OTLP's by stage, so that neither src/
// grows back into a flat list told apart by prefixes. A new room is added here on purpose,
// and a top-level file named after a room (decode-*.ts beside decode/) belongs in it.
const ROOMS: Array<{ dir: string; folders: readonly string[]; maxTopFiles: number }> = [
  { dir: 'apps/writer/src', folders: ['span-batches', 'writer-threads', 'processors', 'passes'], maxTopFiles: 8 },
  { dir: 'packages/otlp/src', folders: ['decode', 'validate', 'proto', 'testing'], maxTopFiles: 8 },
];
for (const room of ROOMS) {
  const entries = readdirSync(path.join(root, room.dir));
  const isFolder = (entry: string) => statSync(path.join(root, room.dir, entry)).isDirectory();
  const topFiles = entries.filter((e) => !isFolder(e));
  for (const folder of entries.filter(isFolder)) {
    if (!room.folders.includes(folder)) problems.push(`${room.dir}/${folder}/: not one of its rooms (${room.folders.join(', ')}); add it to ROOMS in scripts/check-architecture.ts`);
  }
  if (topFiles.length > room.maxTopFiles) problems.push(`${room.dir} has ${topFiles.length} files at its top, at most ${room.maxTopFiles}: modules live in its folders (${room.folders.join(', ')})`);
  for (const file of topFiles) {
    const folder = room.folders.find((f) => file.startsWith(`${f}-`));
    if (folder) problems.push(`${room.dir}/${file}: named after the ${folder}/ room, so it lives in it`);
  }
}

// The test ClickHouse endpoint (test/support/clickhouse-http/) stands in for a server in
// tests and the benchmark only: apps and packages never reach into test/.
const TEST_DIR = path.join(root, 'test') + path.sep;
for (const w of workspaces) {
  for (const file of sourceFiles(path.join(w.dir, 'src'))) {
    const reached = new Set([...relativeImports(file), ...[...readFileSync(file, 'utf8').matchAll(/['"]([^'"]*test\/support[^'"]*)['"]/g)].map((m) => path.resolve(path.dirname(file), m[1]!))]);
    for (const target of reached) {
      if (target.startsWith(TEST_DIR)) problems.push(`${path.relative(root, file)} imports ${path.relative(root, target)}: production code never imports test support`);
    }
  }
}

if (problems.length > 0) {
  console.error(`architecture check failed:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`architecture check: ${workspaces.length} workspaces, no package or module cycles, packages import no app, storage domains within their imports, ${mounted.length} query routes named after their URLs, ${ROOMS.length} src folders in their rooms`);
