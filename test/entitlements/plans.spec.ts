import { featuresOf, resolvePlan } from '../../src/modules/entitlements/domain/plans.js';

describe('plans', () => {
  it('resolves a partner plan: its mapping, else an internal code, else the product default', () => {
    expect(resolvePlan('textapp', 'gold', 'audio_early')).toBe('audio_early');
    expect(resolvePlan('textapp', 'text_early', null)).toBe('text_early');
    expect(resolvePlan('audioapp', 'gold', null)).toBe('audio_standard');
    expect(resolvePlan('kidsapp', null, null)).toBe('kids_standard');
  });

  it('grants the union of the features of active entitlements only', () => {
    expect(
      featuresOf([
        { product: 'textapp', status: 'active', internalPlan: 'text_early' },
        { product: 'audioapp', status: 'suspended', internalPlan: 'audio_standard' },
      ]),
    ).toEqual({ reading: true, audio: false, earlyAccess: true });
    expect(featuresOf([{ product: 'kidsapp', status: 'active', internalPlan: 'kids_standard' }])).toEqual({ reading: false, audio: false, earlyAccess: false });
    expect(featuresOf([{ product: 'audioapp', status: 'active', internalPlan: 'audio_standard' }])).toEqual({ reading: true, audio: true, earlyAccess: false });
  });
});
