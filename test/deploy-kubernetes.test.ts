/**
 * deploy/kubernetes/ (issue 30, item 3): every manifest is validated offline against the
 * official JSON schemas (Kubernetes' from kubernetes-models, KEDA's from
 * @kubernetes-models/keda), and agrees with fileconv and with itself: FILECONV_ variables are
 * settings, commands and flags exist, the probes ask routes the API serves on the port it listens
 * on, the autoscaler reads a metric fileconv exports, and names and labels refer to each other.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { METRIC_NAMES } from '../src/adapters/metrics/instruments.js';
import { createMetrics, DEFAULT_PREFIX } from '../src/adapters/metrics/prometheus.js';
import {
  commandProblems,
  IMAGE_DATA_DIR,
  isApiGetRoute,
  METRICS_PATH,
  ROOT,
  SERVE_PORT,
  unknownVariables,
} from './helpers/deploy-files.js';

const DIR = join(ROOT, 'deploy', 'kubernetes');
/** Manifests kept beside the others as an alternative, not applied by kustomization.yaml. */
const ALTERNATIVES = ['hpa-external-metric.yaml'];

/** Each kind the manifests use, with its schema's validator (validate() throws what is wrong). */
const MODELS: Record<string, { prototype: { validate(): void } }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'keda.sh/v1alpha1 ScaledObject': ScaledObject,
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are read as the YAML says; the schema checks them.
  spec?: any;
  data?: Record<string, string>;
}

interface Kustomization {
  resources: string[];
  secretGenerator: { name: string; envs: string[] }[];
  images: { name: string }[];
}

/**
 * Validates `manifest` against its kind's schema, and returns the fields the schema does not know.
 * Kubernetes' schemas allow unknown fields (the API server drops them, so a misspelt
 * `timeoutSecond` would be silently ignored); the validators read every field they know, so a
 * field never read while validating is one the schema lacks.
 */
function validateStrictly(Model: { prototype: { validate(): void } }, manifest: Manifest): string[] {
  const unread = new Set<string>();
  const track = (value: unknown, path: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const keys = new Set(Object.keys(value));
    for (const key of keys) unread.add(`${path}/${key}`);
    return new Proxy(value, {
      get(target, key, receiver) {
        if (typeof key !== 'string' || !keys.has(key)) return Reflect.get(target, key, receiver);
        unread.delete(`${path}/${key}`);
        return track(Reflect.get(target, key, receiver), `${path}/${key}`);
      },
    });
  };
  // A model's validate() checks `this`: here, the tracked manifest.
  Model.prototype.validate.call(track(manifest, ''));
  return [...unread];
}

function manifestsOf(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((document) => {
    expect(document.errors, file).toEqual([]);
    return document.toJS() as Manifest;
  });
}

const kustomization = parse(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8')) as Kustomization;
const applied = kustomization.resources.flatMap(manifestsOf);
const everyManifest = [...applied, ...ALTERNATIVES.flatMap(manifestsOf)];

function one(kind: string, name: string): Manifest {
  const found = everyManifest.filter((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0]!;
}

const apiDeployment = one('Deployment', 'fileconv-api');
const workerDeployment = one('Deployment', 'fileconv-worker');
const configMap = one('ConfigMap', 'fileconv-config');
const apiContainer = apiDeployment.spec.template.spec.containers[0];
const workerContainer = workerDeployment.spec.template.spec.containers[0];

/** secret.env's keys, as its example gives them. */
const secretKeys = readFileSync(join(DIR, 'secret.env.example'), 'utf8')
  .split('\n')
  .filter((line) => /^[A-Z]/.test(line))
  .map((line) => line.split('=')[0]!);

/** A named port's number in a container. */
function portNumber(container: { ports: { name: string; containerPort: number }[] }, name: string): number {
  const port = container.ports.find((candidate) => candidate.name === name);
  expect(port, `port ${name}`).toBeDefined();
  return port!.containerPort;
}

describe('deploy/kubernetes', () => {
  it('lists every manifest in kustomization.yaml, but the alternatives', () => {
    const yamlFiles = readdirSync(DIR).filter(
      (file) => file.endsWith('.yaml') && file !== 'kustomization.yaml',
    );
    expect([...kustomization.resources, ...ALTERNATIVES].sort()).toEqual(yamlFiles.sort());
    for (const file of kustomization.secretGenerator.flatMap((generator) => generator.envs)) {
      // The real file holds secrets and is ignored by git; its example is committed.
      expect(existsSync(join(DIR, `${file}.example`)), `${file}.example`).toBe(true);
    }
  });

  it("passes the schemas of Kubernetes' and KEDA's resources", () => {
    expect(everyManifest.length).toBeGreaterThanOrEqual(6);
    for (const manifest of everyManifest) {
      const Model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
      expect(Model, `a schema for ${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      expect(validateStrictly(Model!, manifest), `${manifest.metadata.name}: fields no schema knows`).toEqual(
        [],
      );
    }
  });

  it('rejects what the schema does not allow, and fields it does not know', () => {
    const broken = structuredClone(workerDeployment);
    broken.spec.template.spec.containers[0].ports[0].containerPort = 'metrics';
    expect(() => validateStrictly(Deployment, broken)).toThrow(/containerPort/);
    const misspelt = structuredClone(workerDeployment);
    misspelt.spec.template.spec.containers[0].livenessProbe.timeoutSecond = 5;
    expect(validateStrictly(Deployment, misspelt)).toEqual([
      '/spec/template/spec/containers/0/livenessProbe/timeoutSecond',
    ]);
  });

  it('names only real FILECONV_ settings, in every file', () => {
    for (const file of readdirSync(DIR)) {
      expect(unknownVariables(readFileSync(join(DIR, file), 'utf8')), file).toEqual([]);
    }
    expect(secretKeys).toEqual(expect.arrayContaining(['FILECONV_SIGNING_SECRET', 'FILECONV_REDIS_URL']));
  });

  it('runs the API and the workers with real commands and flags', () => {
    expect(commandProblems(apiContainer.args)).toEqual([]);
    expect(apiContainer.args).toEqual(['serve', '--no-worker']);
    expect(commandProblems(workerContainer.args)).toEqual([]);
    expect(workerContainer.args[0]).toBe('worker');
  });

  it("probes routes the API serves, on the port it listens on, and the workers' metrics port", () => {
    expect(portNumber(apiContainer, 'http')).toBe(SERVE_PORT);
    expect(apiContainer.readinessProbe.httpGet).toEqual({ path: '/api/ready', port: 'http' });
    expect(apiContainer.livenessProbe.httpGet).toEqual({ path: '/api/health', port: 'http' });
    for (const probe of [
      apiContainer.readinessProbe,
      apiContainer.livenessProbe,
      apiContainer.startupProbe,
    ]) {
      expect(isApiGetRoute(probe.httpGet.path), probe.httpGet.path).toBe(true);
    }
    const metricsPort = Number(configMap.data?.FILECONV_METRICS_PORT);
    expect(portNumber(workerContainer, 'metrics')).toBe(metricsPort);
    expect(portNumber(apiContainer, 'metrics')).toBe(metricsPort);
    expect(workerContainer.livenessProbe.httpGet).toEqual({ path: METRICS_PATH, port: 'metrics' });
    // Where Prometheus scrapes each pod (the usual annotations), and so where the autoscaler reads.
    for (const deployment of [apiDeployment, workerDeployment]) {
      expect(deployment.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPort),
        'prometheus.io/path': METRICS_PATH,
      });
    }
  });

  it('gives every pod the config, the secrets, the image and a /data of its own', () => {
    const secretName = kustomization.secretGenerator[0]!.name;
    for (const deployment of [apiDeployment, workerDeployment]) {
      const { spec } = deployment.spec.template;
      const container = spec.containers[0];
      expect(container.envFrom).toEqual([
        { configMapRef: { name: configMap.metadata.name } },
        { secretRef: { name: secretName } },
      ]);
      expect(kustomization.images.map((image) => image.name)).toContain(container.image);
      const mount = container.volumeMounts.find(
        (candidate: { mountPath: string }) => candidate.mountPath === IMAGE_DATA_DIR,
      );
      expect(spec.volumes.find((volume: { name: string }) => volume.name === mount.name).emptyDir).toEqual(
        {},
      );
      // The image's user: the data dir it writes to must be its own.
      expect(spec.securityContext.runAsUser).toBe(10001);
    }
  });

  it("selects each Deployment's own pods, and the Service the API's", () => {
    for (const deployment of [apiDeployment, workerDeployment]) {
      expect(deployment.spec.template.metadata.labels).toMatchObject(deployment.spec.selector.matchLabels);
    }
    const service = one('Service', 'fileconv-api');
    expect(apiDeployment.spec.template.metadata.labels).toMatchObject(service.spec.selector);
    expect(workerDeployment.spec.template.metadata.labels).not.toMatchObject(service.spec.selector);
    expect(service.spec.ports[0].targetPort).toBe('http');
  });

  it('scales the workers on a queue-depth metric fileconv exports', () => {
    // As `--metrics-port` exposes it: the default prefix.
    const queueDepth = `${DEFAULT_PREFIX}${METRIC_NAMES.queueDepth}`;
    expect(createMetrics().registry.getSingleMetric(queueDepth)).toBeDefined();
    const keda = one('ScaledObject', 'fileconv-worker');
    expect(keda.spec.scaleTargetRef.name).toBe(workerDeployment.metadata.name);
    const [trigger] = keda.spec.triggers;
    expect(trigger.type).toBe('prometheus');
    expect(trigger.metadata.query).toBe(`max(${queueDepth})`);
    const hpa = one('HorizontalPodAutoscaler', 'fileconv-worker');
    expect(hpa.spec.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: workerDeployment.metadata.name,
    });
    expect(hpa.spec.metrics[0].external.metric.name).toBe(queueDepth);
  });
});
