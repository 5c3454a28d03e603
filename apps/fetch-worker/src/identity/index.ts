export type { BrowserIdentity, BrandVersion, IdentityOs, UserAgentMetadata } from './browser-identity';
export { chromeBrands, secChUa } from './brands';
export { parseEngineVersion, readEngineVersion } from './engine-version';
export { IdentityGenerator, type EngineVersion, type IdentityRequest, type IdentityGeneratorOptions } from './identity-generator';
export { acceptLanguage, languagesFor, timezoneFor, DEFAULT_COUNTRY } from './locale';
export { navigationHeaders, NAVIGATION_ACCEPT, type WireProtocol } from './navigation-headers';
export { DESKTOP_SCREENS, BROWSER_UI_HEIGHT, SCREEN_BAR_HEIGHT, screenInfoFlag, isDesktopScreen, type DesktopScreen } from './screens';
