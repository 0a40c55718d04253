import { execFileSync } from 'node:child_process';

/**
 * The real OPA for tests (issue 29): TEAMSTAGE_OPA_PATH, else `opa` on the PATH. There is no fake engine: a
 * machine without OPA fails these tests with how to get it.
 */
export function opaPath(): string {
  const candidate = process.env.TEAMSTAGE_OPA_PATH || 'opa';
  try {
    execFileSync(candidate, ['version'], { stdio: 'ignore', timeout: 10_000 });
    return candidate;
  } catch {
    throw new Error(
      `OPA not found (${candidate}): set TEAMSTAGE_OPA_PATH or put opa on the PATH, e.g. ` +
        '`bash scripts/build-opa.sh DIR` (the pinned v1.22.3, static; scripts/run-tests.ts builds it into ~/.cache/teamstage-realclients/bin)',
    );
  }
}
