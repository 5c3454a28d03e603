import { blockedResourceTypes } from './request-interception';

describe(blockedResourceTypes.name, () => {
  it('maps API resource names to Chromium types, other to the types it covers', () => {
    expect([...blockedResourceTypes(['image', 'fetch', 'other'])].sort()).toEqual(
      ['cspviolationreport', 'fetch', 'image', 'other', 'ping', 'prefetch', 'signedexchange'].sort(),
    );
  });

  it('leaves websocket to the in-page stub and never blocks documents', () => {
    const types = blockedResourceTypes(['websocket', 'script']);
    expect([...types]).toEqual(['script']);
    expect(types.has('document')).toBe(false);
  });
});
