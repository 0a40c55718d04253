import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evalMessage } from '../../src/policies/opa-engine.js';

// What opa prints when it reaches the memory cap (`ulimit -d`) depends on Go's collector: both endings are
// the memory bound, not an error of the policy to show its author as a stack trace.
const limits = { memoryBytes: 160 * 1024 * 1024, timeoutMs: 2000 };
const crashed = (stderr: string) => ({ code: 2, stdout: '', stderr, stopped: undefined });

describe('the reason of a failed opa evaluation', () => {
  it('a runtime out-of-memory end, and a SIGSEGV inside the runtime (Go 1.26 green tea GC), are the memory bound', () => {
    const fatal = 'fatal error: runtime: cannot allocate memory\n\ngoroutine 1 gp=0x2 m=0 [running]:\nruntime.throw({0x189de8d?, 0x35?})\n';
    const segfault =
      'SIGSEGV: segmentation violation\nPC=0x437c7d m=0 sigcode=1 addr=0x0\n\ngoroutine 0 gp=0x2d2c100 m=0 mp=0x2d2d960 [idle]:\n' +
      'runtime.(*spanQueue).tryDrain(0x1000?, 0x85eb?, 0x203817a?)\n\truntime/mgcmark_greenteagc.go:520 +0x5d\n';
    for (const stderr of [fatal, segfault]) {
      assert.equal(evalMessage(crashed(stderr), limits), 'the evaluation needed more than 160 MiB and was stopped');
    }
  });

  it('OPA\'s own errors are passed on, and a timeout is ours', () => {
    const error = JSON.stringify({ errors: [{ message: 'eval_conflict_error: complete rules must not produce multiple outputs' }] });
    assert.equal(evalMessage({ code: 2, stdout: error, stderr: '', stopped: undefined }, limits), 'eval_conflict_error: complete rules must not produce multiple outputs');
    assert.equal(evalMessage(crashed('context deadline exceeded'), limits), 'the evaluation took longer than 2000 ms and was stopped');
  });
});
