import { randomBytes } from 'node:crypto';
import type { Browser, Frame } from 'puppeteer-core';
// The internal tree's own types: its classes are not the public bundle's (private fields differ).
import type { CDPSession } from 'puppeteer-core/internal/api/CDPSession.js';
import type { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { CdpCDPSession } from 'puppeteer-core/internal/cdp/CdpSession.js';
import type { CdpFrame } from 'puppeteer-core/internal/cdp/Frame.js';
import { IsolatedWorld } from 'puppeteer-core/internal/cdp/IsolatedWorld.js';
import { MAIN_WORLD, PUPPETEER_WORLD } from 'puppeteer-core/internal/cdp/IsolatedWorlds.js';
import { UTILITY_WORLD_NAME } from 'puppeteer-core/internal/common/util.js';

/**
 * puppeteer without DevTools' Runtime domain.
 *
 * puppeteer-core enables `Runtime` in every page, frame and worker to hear of their JavaScript
 * contexts. A page can see that: with a client listening, `console.debug(error)` serialises the
 * error and runs its `Error.prepareStackTrace`, which never happens in a person's browser (the
 * check rebrowser's patches document, and detectors run). Here `Runtime.enable` is never sent for
 * the browsers given to {@link quietRuntime}; a frame's contexts are made and announced to
 * puppeteer the moment one of its worlds is first used, with commands that leave no trace:
 *
 * - puppeteer's own isolated world: `Page.createIsolatedWorld` answers with the context's id.
 * - the page's main world: the frame's document node, taken in that isolated world, resolved again
 *   by DevTools in the main world; the new remote object's id names its context. The page sees
 *   nothing of it (no binding, no script, no event).
 *
 * When a frame commits a new document, the contexts announced for it are reported destroyed (as
 * DevTools would have), and those that were in use are made again at once, so a wait that spans a
 * navigation goes on in the new document. Workers' contexts are never made: nothing evaluates in
 * a worker (overrides reach them while they wait for the debugger).
 *
 * puppeteer has no public hook for this: the patch is on its internal classes (`internal/cdp`),
 * pinned with puppeteer-core's version, and proven by the render suites and the stealth suite.
 */
export function quietRuntime(browser: Browser): void {
  installOnce();
  quietConnections.add((browser as unknown as { _connection: Connection })._connection);
}

/**
 * The frame's document as HTML (what `page.content()` answers), read from puppeteer's isolated
 * world: a page's scripts cannot see the read there (they may have replaced `outerHTML` or
 * `XMLSerializer` in their own world to notice one), and that world costs one DevTools call to make
 * where the main world costs four.
 */
export function documentHtml(frame: Frame): Promise<string> {
  return (frame as unknown as CdpFrame).isolatedRealm().evaluate(DOCUMENT_HTML) as Promise<string>;
}

const DOCUMENT_HTML = `(() => {
  let html = '';
  for (const node of document.childNodes) html += node === document.documentElement ? node.outerHTML : new XMLSerializer().serializeToString(node);
  return html;
})()`;

type WorldKind = 'main' | 'utility';

/** What one DevTools session (a page, or an out-of-process frame) has made for its frames. */
interface SessionContexts {
  /** Per frame: the document generation (bumped at each commit) and the worlds announced in it. */
  frames: Map<string, { generation: number; worlds: Map<WorldKind, { contextId: number; world: IsolatedWorld }> }>;
}

const quietConnections = new WeakSet<Connection>();
const sessions = new WeakMap<CDPSession, SessionContexts>();
const pending = new WeakMap<IsolatedWorld, Promise<void>>();
let installed = false;

/** A made context that DevTools did not reach in time, or that a navigation overtook, is made again up to this often. */
const ATTEMPTS = 3;
/** puppeteer takes an announced context within a few ticks; past this, it did not want it. */
const ANNOUNCE_TIMEOUT_MS = 2_000;

function installOnce(): void {
  if (installed) return;
  installed = true;
  const send = CdpCDPSession.prototype.send;
  CdpCDPSession.prototype.send = function quietSend(this: CdpCDPSession, ...args: Parameters<typeof send>) {
    if (args[0] === 'Runtime.enable' && quietConnections.has(this.connection())) return Promise.resolve({});
    return send.apply(this, args);
  } as typeof send;
  for (const method of ['evaluate', 'evaluateHandle', 'adoptBackendNode'] as const) {
    const original = IsolatedWorld.prototype[method] as (...args: unknown[]) => Promise<unknown>;
    (IsolatedWorld.prototype as unknown as Record<string, unknown>)[method] = function withContext(
      this: IsolatedWorld,
      ...args: unknown[]
    ) {
      // With a context, puppeteer's call must start in this tick (it orders evaluations by it).
      if (this.hasContext() || !isQuietFrameWorld(this)) return original.apply(this, args);
      return ensureContext(this).then(() => original.apply(this, args));
    };
  }
}

function isQuietFrameWorld(world: IsolatedWorld): boolean {
  const environment = world.environment as Partial<CdpFrame>;
  return typeof environment._id === 'string' && !!environment.worlds && quietConnections.has((world.client as CdpCDPSession).connection());
}

/** Makes and announces the world's context in the frame's current document (one at a time per world). */
function ensureContext(world: IsolatedWorld): Promise<void> {
  let making = pending.get(world);
  if (!making) {
    making = makeContext(world).finally(() => pending.delete(world));
    pending.set(world, making);
  }
  return making;
}

async function makeContext(world: IsolatedWorld): Promise<void> {
  const frame = world.environment as CdpFrame;
  const session = world.client;
  const contexts = followSession(session);
  const kind: WorldKind = frame.worlds[MAIN_WORLD] === world ? 'main' : 'utility';
  for (let attempt = 1; attempt <= ATTEMPTS && !world.hasContext() && !world.disposed; attempt++) {
    const document = frameState(contexts, frame._id);
    const generation = document.generation;
    const contextId = kind === 'utility' ? await utilityContextId(session, frame._id) : await mainContextId(session, frame);
    // A commit in between made the id the old document's: try again in the new one.
    if (contextId === undefined || document.generation !== generation || world.disposed) continue;
    const announced = announcement(world);
    document.worlds.set(kind, { contextId, world });
    session.emit('Runtime.executionContextCreated', {
      context: {
        id: contextId,
        origin: '',
        name: kind === 'utility' ? UTILITY_WORLD_NAME : '',
        uniqueId: '',
        auxData: { frameId: frame._id, isDefault: kind === 'main', type: kind === 'main' ? 'default' : 'isolated' },
      },
    });
    // puppeteer's frame manager takes the event asynchronously; the world is usable once it did.
    await announced;
  }
}

/**
 * Settles once puppeteer took the context (its frame manager handles the event a few ticks later)
 * or gave up on it (a frame that moved to another session ignores it).
 */
function announcement(world: IsolatedWorld): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      world.emitter.off('context', done);
      resolve();
    };
    const timer = setTimeout(done, ANNOUNCE_TIMEOUT_MS);
    world.emitter.once('context', done);
  });
}

/** puppeteer's utility world in the frame's current document (made if it is not there yet). */
async function utilityContextId(session: CDPSession, frameId: string): Promise<number | undefined> {
  const made = await session
    .send('Page.createIsolatedWorld', { frameId, worldName: UTILITY_WORLD_NAME, grantUniveralAccess: true })
    .catch(() => undefined);
  return made?.executionContextId;
}

/**
 * The main world of the frame's current document: its document node, taken in the utility world,
 * resolved again by DevTools without a context (which means the frame's main world). V8 names a
 * remote object `<isolate>.<context>.<object>`, so the resolved node's id carries the context's.
 */
async function mainContextId(session: CDPSession, frame: CdpFrame): Promise<number | undefined> {
  // puppeteer's own world, when it has its context already, saves making it again.
  const known = frame.worlds[PUPPETEER_WORLD].context;
  const utility = known ? known.id : await utilityContextId(session, frame._id);
  if (utility === undefined) return undefined;
  const objectGroup = `q${randomBytes(6).toString('hex')}`;
  try {
    const document = await session.send('Runtime.evaluate', { contextId: utility, expression: 'document', objectGroup, silent: true });
    if (!document.result.objectId) return undefined;
    const { node } = await session.send('DOM.describeNode', { objectId: document.result.objectId });
    const { object } = await session.send('DOM.resolveNode', { backendNodeId: node.backendNodeId, objectGroup });
    const contextId = Number(object.objectId?.split('.')[1]);
    return Number.isInteger(contextId) && contextId > 0 && contextId !== utility ? contextId : undefined;
  } catch {
    return undefined;
  } finally {
    session.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => undefined);
  }
}

function followSession(session: CDPSession): SessionContexts {
  const known = sessions.get(session);
  if (known) return known;
  const made: SessionContexts = { frames: new Map() };
  sessions.set(session, made);
  session.on('Page.frameNavigated', ({ frame }) => {
    const document = made.frames.get(frame.id);
    if (!document) return;
    document.generation++;
    const inUse = [...document.worlds.values()];
    document.worlds.clear();
    for (const { contextId, world } of inUse) {
      session.emit('Runtime.executionContextDestroyed', { executionContextId: contextId, executionContextUniqueId: '' });
      // A world in use stays usable: a wait on it goes on in the new document.
      if (!world.disposed) void ensureContext(world).catch(() => undefined);
    }
  });
  session.on('Page.frameDetached', ({ frameId }) => made.frames.delete(frameId));
  return made;
}

function frameState(contexts: SessionContexts, frameId: string) {
  let document = contexts.frames.get(frameId);
  if (!document) {
    document = { generation: 0, worlds: new Map() };
    contexts.frames.set(frameId, document);
  }
  return document;
}
