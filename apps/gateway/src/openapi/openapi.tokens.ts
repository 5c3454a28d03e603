/** The OpenAPI document, built once at boot. */
export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');
