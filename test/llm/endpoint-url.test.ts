// Where a request goes under a base URL (src/llm/endpoints.ts endpointUrl): as the openai client joins
// them, except that a query on the base URL stays a query after the path (Azure's ?api-version=).
import { describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { endpointUrl } from '../../src/llm/endpoints.js';

/** Where the openai client itself sends a request for `path` under `baseURL` (its buildURL). */
function openaiJoin(baseURL: string, path: string): string {
  const client = new OpenAI({ apiKey: 'x', baseURL });
  return (client as unknown as { buildURL(p: string, q: unknown): string }).buildURL(path, undefined);
}

describe('endpointUrl', () => {
  it('joins a base URL without a query exactly as the openai client does', () => {
    for (const base of [
      'http://127.0.0.1:8000/v1',
      'http://127.0.0.1:8000/v1/',
      'http://h',
      'http://h/',
      'https://api.openai.com/v1',
      'http://u:p@h:11434/v1',
    ]) {
      for (const p of ['/completions', '/chat/completions', '/models']) expect(endpointUrl(base, p).href).toBe(openaiJoin(base, p));
    }
  });

  it("keeps a base URL's query after the path instead of letting it swallow the path", () => {
    expect(endpointUrl('https://x.openai.azure.com/openai/deployments/d?api-version=2024-02-01', '/completions').href).toBe(
      'https://x.openai.azure.com/openai/deployments/d/completions?api-version=2024-02-01',
    );
    expect(endpointUrl('http://h/v1/?api-version=1&api-key=K', '/models').href).toBe('http://h/v1/models?api-version=1&api-key=K');
    expect(endpointUrl('http://h/v1?a=1#frag', '/completions').href).toBe('http://h/v1/completions?a=1');
    // what the openai client's join does: the path becomes part of the query
    expect(new URL(openaiJoin('http://h/v1?api-version=1', '/completions')).pathname).toBe('/v1');
  });
});
