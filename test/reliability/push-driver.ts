/**
 * A client that keeps pushing while servers are killed under it: a few workers send new pushes to
 * the current server, and a push without an answer (connection refused or cut, 503) goes back to
 * a queue and is retried, with the same Idempotency-Key, until it is acknowledged. Anything else
 * (another status, no answer within the deadline) is recorded as a defect and not retried.
 */
import { type PushAnswer, sendPush, type Tenant } from './client.js';
import { makePush, type Push } from './pushes.js';

export interface PushState {
  push: Push;
  attempts: number;
  ack?: PushAnswer;
  /** the acknowledgement came from the stored answer of an earlier, unacknowledged attempt */
  ackReplayed?: boolean;
}

export interface DriverStats {
  pushes: number;
  acked: number;
  ackedFirstTry: number;
  /** retried after a lost answer, and the retry found the first attempt committed */
  retriedCommitted: number;
  /** retried after a lost answer, and the retry stored the push (the first attempt rolled back) */
  retriedStored: number;
  attempts: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A push that cannot be acknowledged within this many tries points at a defect, not bad luck. */
const MAX_ATTEMPTS = 400;

export function createPushDriver(options: {
  seed: number;
  tenant: Tenant;
  workers: number;
  /** a request without an answer after this long is a hang: a defect */
  timeoutMs: number;
  /** each worker's pause between two pushes, to bound the volume of a long run */
  pauseMs: number;
}) {
  const states: PushState[] = [];
  const retries: PushState[] = [];
  const defects: string[] = [];
  let target: string | undefined;
  let takingNew = false;
  let finishing = false;
  let abandoned = false;
  let inFlight = 0;
  let workers: Promise<void>[] = [];

  async function attempt(state: PushState, url: string) {
    state.attempts++;
    inFlight++;
    const outcome = await sendPush(url, options.tenant, state.push, options.timeoutMs);
    inFlight--;
    if (outcome.kind === 'acked') {
      state.ack = outcome.body;
      state.ackReplayed = outcome.replayed;
    } else if (outcome.kind === 'refused') {
      defects.push(`push ${state.push.index} attempt ${state.attempts}: ${outcome.status} ${outcome.text}`);
    } else if (state.attempts >= MAX_ATTEMPTS) {
      defects.push(`push ${state.push.index}: not acknowledged after ${state.attempts} attempts`);
    } else {
      retries.push(state);
      await sleep(50);
    }
  }

  async function work() {
    for (;;) {
      if (abandoned) return;
      let state = retries.shift();
      if (!state && finishing) return;
      const url = target;
      if (!url) {
        if (state) retries.unshift(state);
        await sleep(20);
        continue;
      }
      if (!state) {
        if (!takingNew) {
          await sleep(20);
          continue;
        }
        state = { push: makePush(options.seed, states.length), attempts: 0 };
        states.push(state);
      }
      await attempt(state, url);
      if (options.pauseMs > 0) await sleep(options.pauseMs);
    }
  }

  return {
    states,
    defects,
    inFlight: () => inFlight,
    /** where requests go; undefined while no server is up */
    setTarget(url: string | undefined) {
      target = url;
    },
    /** whether workers start new pushes (retries always go on) */
    setTakingNew(taking: boolean) {
      takingNew = taking;
    },
    start() {
      workers = Array.from({ length: options.workers }, () => work());
    },
    /** Stops new pushes and resolves once every started push is acknowledged (or a defect). */
    async finish() {
      takingNew = false;
      finishing = true;
      await Promise.all(workers);
    },
    /** Resolves once `count` more pushes are acknowledged, so a kill can follow acknowledged work. */
    async waitForAcks(count: number, timeoutMs: number) {
      const acked = () => states.filter((state) => state.ack).length;
      const target = acked() + count;
      const deadline = Date.now() + timeoutMs;
      while (acked() < target) {
        if (Date.now() > deadline)
          throw new Error(`fewer than ${count} pushes acknowledged in ${timeoutMs} ms`);
        await sleep(20);
      }
    },
    /** Stops every worker at once, acknowledged or not: for `after` hooks of a failed test. */
    async abandon() {
      abandoned = true;
      await Promise.all(workers);
    },
    stats(): DriverStats {
      const acked = states.filter((state) => state.ack);
      return {
        pushes: states.length,
        acked: acked.length,
        ackedFirstTry: acked.filter((state) => state.attempts === 1).length,
        retriedCommitted: acked.filter((state) => state.attempts > 1 && state.ackReplayed).length,
        retriedStored: acked.filter((state) => state.attempts > 1 && !state.ackReplayed).length,
        attempts: states.reduce((sum, state) => sum + state.attempts, 0),
      };
    },
  };
}

export type PushDriver = ReturnType<typeof createPushDriver>;
