// The server's environment ids a run holds (docs/protocol.md §8). agentenv-alfworld has no /close and
// keeps every environment it created until it exits, so an episode borrows a free id (POST /create only
// when none is free) and gives it back when it ends: a run creates as many ids as it runs episodes at
// once, not one per episode (a Table 3 run would otherwise leave ~1,600 TextWorld envs on the server).
// A reset on a used id loads the new game in place (agentenv-alfworld, envs/alfworld/server.py).
// - one id per concurrent episode: an id is either free or held by exactly one episode;
// - an id whose last request got no answer (timed out, dropped, aborted) is never reused: the server
//   may still be working on it; its close is sent at once (not awaited by the episode);
// - the free ids are closed when the run's handle closes, which also waits for those closes. POST /close
//   exists on our server.py only: the first 404 stops them. Each close is one attempt of 5 s at most
//   (AlfworldClient.close), the first alone and the rest at once: 10 s at most on a hanging server.
import { InfraError } from '../../errors.js';
import type { AlfworldClient } from './client.js';

export class EnvIdPool {
  private readonly free: number[] = [];
  private readonly held = new Set<number>();
  /** Learnt from the first /close: the server has no such route (agentenv-alfworld's 404). */
  private closeAbsent = false;
  /** Closes of discarded ids still in flight. */
  private readonly closing = new Set<Promise<void>>();

  constructor(private readonly client: AlfworldClient) {}

  /** An id for one episode: a free one, or a new one from POST /create. */
  async acquire(signal?: AbortSignal): Promise<number> {
    const reused = this.free.pop();
    if (reused !== undefined) {
      this.held.add(reused);
      return reused;
    }
    const { id } = await this.client.create(signal);
    // A server that hands out an id already in use (as agentenv-webshop does past 8,000 envs) would
    // make two episodes share one game.
    if (this.held.has(id) || this.free.includes(id)) {
      throw new InfraError(`${this.client.shownUrl}: POST /create returned id ${id}, which this run already holds`, 'env');
    }
    this.held.add(id);
    return id;
  }

  /** The episode ended with every request answered: the id is free for the next episode. */
  release(id: number): void {
    if (!this.held.delete(id)) return;
    this.free.push(id);
  }

  /**
   * The episode ended with a request unanswered: the id is dropped. Its close is sent but not awaited
   * (after an abort the server may be hanging, and an interrupted run must stop at once).
   */
  discard(id: number): void {
    if (!this.held.delete(id) || this.closeAbsent) return;
    const p = this.closeOne(id).finally(() => this.closing.delete(p));
    this.closing.add(p);
  }

  /** Closes the free ids and waits for the closes in flight (never throws); no id is free afterwards. */
  async close(): Promise<void> {
    const ids = this.free.splice(0);
    // The first alone: a server without the route answers 404 once, not once per id.
    if (ids.length && !this.closeAbsent) await this.closeOne(ids.shift()!);
    await Promise.all([...this.closing, ...(this.closeAbsent ? [] : ids.map((id) => this.closeOne(id)))]);
  }

  private async closeOne(id: number): Promise<void> {
    if ((await this.client.close(id)) === 'absent') this.closeAbsent = true;
  }
}
