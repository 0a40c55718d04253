import assert from 'node:assert/strict';
import type { ApiResponse } from './api-client.js';
import { ERROR_TITLES } from '../../src/http/error-document.js';

/** A JSON:API error document with the given status and the catalogue title; returns the first error. */
export function assertError(response: ApiResponse, status: number, detail?: RegExp): { status: string; title: string; detail?: string; source?: Record<string, string> } {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
  assert.match(String(response.headers['content-type']), /^application\/vnd\.api\+json/);
  assert.ok(Array.isArray(response.body?.errors) && response.body.errors.length > 0, response.text);
  const error = response.body.errors[0];
  assert.equal(error.status, String(status));
  assert.equal(error.title, ERROR_TITLES[status]);
  if (detail) assert.match(error.detail ?? '', detail);
  return error;
}

export function assertStatus(response: ApiResponse, status: number): void {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
}
