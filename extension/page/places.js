// Places at the site for a run's fetched pages. A run (a follow's detail pages: engine/detail_batch.py)
// may ask the page for more pages than the site is to get at once: each page's request waits
// here for a place of its pool and gives it back as soon as its body has come (page/fetch.js), so the
// site gets the next request while a page is parsed and read and while an answer travels back to the
// engine, and never more than the pool's size at once. A pool's size is the latest one asked for; a
// command called off takes its pages still waiting out of the queue (they make no request).
(() => {
  const agent = globalThis.__tabpilotAgent.use('places', {
    needs: ['PageError'],
    provides: ['takePlace', 'commands.fetch_stop'],
  });
  const pools = new Map(); // pool -> {size, busy, queue: [{go, stop, ticket}]}: ticket, the command's

  function pump(p) {
    while (p.busy < p.size && p.queue.length) {
      p.busy += 1;
      p.queue.shift().go();
    }
  }

  function forget(name, p) {
    if (!p.busy && !p.queue.length && pools.get(name) === p) pools.delete(name);
  }

  /**
   * A place in pool `place.pool` of `place.size` (a positive integer) for command `place.ticket`:
   * resolves, once taken, to the function that gives it back (once; later calls do nothing).
   */
  agent.takePlace = async ({ pool, size, ticket = null }) => {
    let p = pools.get(pool);
    if (!p) pools.set(pool, (p = { size, busy: 0, queue: [] }));
    p.size = size;
    const taken = new Promise((go, stop) => p.queue.push({ go, stop, ticket }));
    pump(p);
    await taken;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      p.busy -= 1;
      pump(p);
      forget(pool, p);
    };
  };

  /** Command `ticket` of `pool` was called off: its pages still waiting for a place make no request. */
  agent.commands.fetch_stop = ({ pool, ticket = null }) => {
    const p = pools.get(pool);
    if (!p) return { stopped: 0 };
    const waiting = p.queue.filter((w) => w.ticket === ticket);
    p.queue = p.queue.filter((w) => w.ticket !== ticket);
    for (const w of waiting) w.stop(new agent.PageError('cancelled', 'the command was called off before this page was asked for'));
    forget(pool, p);
    return { stopped: waiting.length };
  };
})();
