// The OpenAI-compatible test server in its own process (as a real server would be), so its CPU time
// (JSON, token counting of long prompts) is not charged to the client being measured.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** `script` names an export of bench/support/scripts.ts used as the server's respond function. */
export async function childOpenAIServer(opts: {
  script: 'searchX' | 'reactEpisode' | 'reactEpisodeWiki';
  latencyMs?: number;
}): Promise<{ baseURL: string; close: () => void }> {
  const serverModule = pathToFileURL(path.join(here, '../../test/servers/openai-server.ts')).href;
  const scriptsModule = pathToFileURL(path.join(here, 'scripts.ts')).href;
  const code = `
    const { startOpenAIServer } = await import(${JSON.stringify(serverModule)});
    const scripts = await import(${JSON.stringify(scriptsModule)});
    const s = await startOpenAIServer({ latencyMs: ${opts.latencyMs ?? 0}, respond: scripts[${JSON.stringify(opts.script)}] });
    process.stdout.write(s.baseURL + '\\n');
    process.stdin.on('end', () => s.close().then(() => process.exit(0)));
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const baseURL = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', (c) => reject(new Error(`bench server exited with ${c}`)));
  });
  return { baseURL, close: () => child.stdin.end() };
}

/** The Wikipedia stand-in (test/servers/wiki-server.ts: /w/index.php as the notebook's requests.get asks it) in its own process. */
export async function childWikiServer(): Promise<{ url: string; close: () => void }> {
  const serverModule = pathToFileURL(path.join(here, '../../test/servers/wiki-server.ts')).href;
  const code = `
    const { startWikiServer } = await import(${JSON.stringify(serverModule)});
    const s = await startWikiServer();
    process.stdout.write(s.url + '\\n');
    process.stdin.on('end', () => s.close().then(() => process.exit(0)));
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', (c) => reject(new Error(`bench wiki server exited with ${c}`)));
  });
  return { url, close: () => child.stdin.end() };
}
