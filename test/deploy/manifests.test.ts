// The Kubernetes manifests under deploy/, checked against Kubernetes' schema as kubernetes-models
// ships it, two ways: its validators (required members, types, formats) and its TypeScript types,
// which reject a member Kubernetes does not know (a misspelt field), at any depth. Also: the probes
// name routes agentd serves, and the Deployment reads the Secret the example defines.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Secret, Service } from 'kubernetes-models/v1';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startServer, type TestServer } from '../support/server.js';

type Manifest = Record<string, unknown> & { kind: string; metadata: { name: string } };

const MODELS = {
  Deployment: { model: Deployment, type: 'IDeployment', from: 'kubernetes-models/apps/v1/Deployment' },
  Service: { model: Service, type: 'IService', from: 'kubernetes-models/v1/Service' },
  Secret: { model: Secret, type: 'ISecret', from: 'kubernetes-models/v1/Secret' },
} as const;

const dir = join(process.cwd(), 'deploy');
const manifests: Manifest[] = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${f}: ${doc.errors[0]!.message}`);
      return doc.toJS() as Manifest;
    }),
  );

function modelOf(m: Manifest) {
  const entry = MODELS[m.kind as keyof typeof MODELS];
  if (!entry) throw new Error(`no schema here for kind ${m.kind}`);
  return entry;
}

/** The schema's validators: throws on a missing member, a wrong type or format. */
function validate(m: Manifest): void {
  const { model } = modelOf(m);
  new (model as new (data: unknown) => { validate(): void })(m).validate();
}

/** TypeScript's excess-property check against the model's type: one message per unknown member. */
function unknownMembers(list: Manifest[]): string[] {
  const file = join(process.cwd(), 'test', 'deploy', '__manifests__.ts');
  const source = list
    .map((m, i) => {
      const { type, from } = modelOf(m);
      return `import type { ${type} as T${i} } from '${from}';\nexport const m${i}: T${i} = ${JSON.stringify(m)};`;
    })
    .join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || fileExists(name);
  const program = ts.createProgram([file], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]!);
}

describe('deploy/ manifests', () => {
  it('are a Deployment of several replicas, its Service, the engines as external services, a Secret', () => {
    const kinds = manifests.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(kinds).toEqual([
      'Deployment/agentd',
      'Secret/agentd',
      'Service/agentd',
      'Service/postgres',
      'Service/redis',
    ]);
    const deployment = manifests.find((m) => m.kind === 'Deployment') as unknown as Deployment;
    expect(deployment.spec!.replicas).toBeGreaterThan(1);
    const container = deployment.spec!.template.spec!.containers[0]!;
    expect(container.envFrom).toEqual([{ secretRef: { name: 'agentd' } }]);
    const secret = manifests.find((m) => m.kind === 'Secret') as unknown as Secret;
    expect(Object.keys(secret.stringData ?? {}).sort()).toEqual(
      ['AGENTD_DATABASE_URL', 'AGENTD_REDIS_URL', 'OH_SECRET_KEY', 'OH_SESSION_API_KEYS_0'].sort(),
    );
    for (const name of ['postgres', 'redis']) {
      const svc = manifests.find(
        (m) => m.kind === 'Service' && m.metadata.name === name,
      ) as unknown as Service;
      expect(svc.spec!.type).toBe('ExternalName');
    }
  });

  it('pass the schema: validators and members', () => {
    for (const m of manifests) validate(m);
    expect(unknownMembers(manifests)).toEqual([]);
  });

  it('the schema check fails on a misspelt member and on a wrong type', () => {
    const deployment = manifests.find((m) => m.kind === 'Deployment')!;
    const misspelt = structuredClone(deployment) as unknown as Deployment;
    const probe = misspelt.spec!.template.spec!.containers[0]!.readinessProbe!.httpGet as unknown as Record<
      string,
      unknown
    >;
    probe.pth = probe.path;
    delete probe.path;
    expect(unknownMembers([misspelt as unknown as Manifest]).join('\n')).toMatch(
      /'"pth"' does not exist in type 'IHTTPGetAction'/,
    );
    const wrongType = structuredClone(deployment) as Manifest & { spec: { replicas: unknown } };
    wrongType.spec.replicas = 'three';
    expect(() => validate(wrongType)).toThrow(/replicas/);
  });

  describe('probes', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({ controlPlane: false });
    });
    afterAll(() => server.close({ remove: true }));

    it('name routes agentd answers 200 without a session key', async () => {
      const deployment = manifests.find((m) => m.kind === 'Deployment') as unknown as Deployment;
      const container = deployment.spec!.template.spec!.containers[0]!;
      const paths = [container.readinessProbe!.httpGet!.path, container.livenessProbe!.httpGet!.path];
      expect(paths).toEqual(['/ready', '/alive']);
      for (const path of paths) expect((await fetch(`${server.url}${path}`)).status).toBe(200);
    });
  });
});
