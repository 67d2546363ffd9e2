// NODE_EXTRA_CA_CERTS names a certificate file that Node 20 reads and parses as every process starts,
// before any JavaScript runs. This machine's environment sets it to the whole system bundle
// (/etc/ssl/certs/ca-certificates.crt, ~140 certificates): `node -e 0` took 110–150 ms with it and
// 70–90 ms without (2026-11-28), which is most of why this machine seemed slower than on 2026-11-25.
// The start and loop benches keep the environment as given and say so; with --without-extra-ca-certs
// every Node process they start (ours, --base, the `node -e 0` reference) runs without the variable.
// The paper's loop (Python) does not read it.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS || undefined;
export const withoutExtraCa = process.argv.includes('--without-extra-ca-certs');

/** `env` for a Node process the bench measures: without NODE_EXTRA_CA_CERTS under --without-extra-ca-certs. */
export function nodeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!withoutExtraCa) return env;
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

/** Wall ms of `node -e 0`, with NODE_EXTRA_CA_CERTS as the measured processes have it, or without it. */
export function nodeStartMs(opts: { withoutCa?: boolean } = {}): number {
  const env = { ...nodeEnv(process.env) };
  if (opts.withoutCa) delete env.NODE_EXTRA_CA_CERTS;
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { env });
  return performance.now() - t0;
}

/** The line the benches print about the variable. */
export function extraCaLine(): string {
  if (!extraCaCerts) return 'NODE_EXTRA_CA_CERTS: not set';
  return withoutExtraCa
    ? `NODE_EXTRA_CA_CERTS=${extraCaCerts} in the environment, removed for every Node process measured (--without-extra-ca-certs)`
    : `NODE_EXTRA_CA_CERTS=${extraCaCerts} kept: every Node process measured reads it as it starts (--without-extra-ca-certs removes it)`;
}
