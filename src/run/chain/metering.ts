// The metering layer of an episode's model chain: every call, answered or not, goes to the episode's
// meter (src/run/meter.ts), the one source of the record's tokens and cost and of what the session spent.
// It sits right above the cache (or the backend), so it sees what each call really cost.
import { around, type ModelLayer } from '../../llm/layer.js';
import { recordError } from '../../envs/recording.js';
import { isInFlightAbort, type EpisodeMeter } from '../meter.js';

export function meteringLayer(meter: EpisodeMeter): ModelLayer {
  return (inner) =>
    around(inner, async (req, opts) => {
      meter.asked();
      let res;
      try {
        res = await inner.complete(req, opts);
      } catch (e) {
        // Classified as the recording classifies it (a budget refusal was never sent).
        meter.failed(isInFlightAbort(recordError(e, opts?.signal)));
        throw e;
      }
      meter.answered(req, res);
      return res;
    });
}
