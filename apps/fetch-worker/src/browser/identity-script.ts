import type { BrowserIdentity } from '../identity';

/** What the init script sets: only what DevTools' own overrides cannot. */
interface ScriptSettings {
  webgl: { vendor: string; renderer: string };
  deviceMemory: number;
  /** `navigator.platform` inside workers (the user-agent override reaches documents only). */
  platform: string;
}

/**
 * Runs in every document before its own scripts (`Page.addScriptToEvaluateOnNewDocument`) and in
 * every worker before its script (evaluated while the worker waits for the debugger). Each patched
 * function is a Proxy of the native one that calls it first (so its arity errors, `name` and
 * `length` stay native) and `Function.prototype.toString` answers the native text for it: a page
 * that compares a function's source with `[native code]` sees nothing.
 */
function identityInit(settings: ScriptSettings): void {
  const scope = globalThis as unknown as Record<string, { prototype?: object } | undefined> & {
    document?: unknown;
    isSecureContext?: boolean;
  };
  const nativeToString = Function.prototype.toString;
  const masked = new WeakMap<object, string>();
  const toStringProxy = new Proxy(nativeToString, {
    apply(target, self, args) {
      const text = masked.get(self as object);
      return text ?? Reflect.apply(target, self, args);
    },
  });
  masked.set(toStringProxy, nativeToString.call(nativeToString));
  Object.defineProperty(Function.prototype, 'toString', { value: toStringProxy, writable: true, enumerable: false, configurable: true });
  const wrap = <F extends (...args: never[]) => unknown>(fn: F, apply: (target: F, self: unknown, args: unknown[]) => unknown): F => {
    const proxy = new Proxy(fn, { apply: (target, self, args) => apply(target, self, args) });
    masked.set(proxy, nativeToString.call(fn));
    return proxy;
  };
  /** Replaces a getter's answer by `answer(native answer)`, computed when it is read. */
  const replaceGetter = (proto: object | undefined, name: string, answer: (native: unknown) => unknown) => {
    const descriptor = proto && Object.getOwnPropertyDescriptor(proto, name);
    if (!proto || !descriptor?.get) return;
    const get = descriptor.get;
    Object.defineProperty(proto, name, {
      ...descriptor,
      get: wrap(get, (target, self, args) => answer(Reflect.apply(target, self, args))),
    });
  };
  for (const name of ['WebGLRenderingContext', 'WebGL2RenderingContext']) {
    const proto = scope[name]?.prototype as Record<string, unknown> | undefined;
    const descriptor = proto && Object.getOwnPropertyDescriptor(proto, 'getParameter');
    if (!proto || typeof descriptor?.value !== 'function') continue;
    Object.defineProperty(proto, 'getParameter', {
      ...descriptor,
      value: wrap(descriptor.value as (...args: never[]) => unknown, (target, self, args) => {
        const answer = Reflect.apply(target, self, args);
        // WEBGL_debug_renderer_info's UNMASKED_VENDOR_WEBGL and UNMASKED_RENDERER_WEBGL.
        if (args[0] === 0x9245) return settings.webgl.vendor;
        if (args[0] === 0x9246) return settings.webgl.renderer;
        return answer;
      }),
    });
  }
  const worker = scope.document === undefined;
  // The browser holds every screen an identity may have (see screenInfoFlag): one person's screen is
  // not a row of monitors.
  if (!worker) replaceGetter(scope.Screen?.prototype, 'isExtended', () => false);
  const navigatorProto = (worker ? scope.WorkerNavigator : scope.Navigator)?.prototype;
  replaceGetter(navigatorProto, 'deviceMemory', () => settings.deviceMemory);
  if (worker) {
    replaceGetter(navigatorProto, 'platform', () => settings.platform);
    // Headless answers `denied` in workers where a browser answers `default` (a secure context's
    // untouched permission): BotD's headless check compares it with the permissions API. Decided
    // when read: a worker that still waits for the debugger hangs its page if asked where it is.
    const notification = scope.Notification as object | undefined;
    if (notification)
      replaceGetter(notification, 'permission', (native) => (native === 'denied' && scope.isSecureContext ? 'default' : native));
  }
}

/** The init script's source for an identity (the same text for page, frames and workers). */
export function identityScript(identity: BrowserIdentity): string {
  const settings: ScriptSettings = { webgl: identity.webgl, deviceMemory: identity.deviceMemory, platform: identity.navigatorPlatform };
  return `(${identityInit.toString()})(${JSON.stringify(settings)});`;
}
