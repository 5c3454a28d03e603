import { estimateCredits } from './cost-estimate';

describe(estimateCredits.name, () => {
  it('prices each group of tasks at the tier its merged parameters imply', () => {
    const estimate = estimateCredits({ js_render: 'true' }, [
      { serviceParams: null, tasks: 10 },
      { serviceParams: { premium_proxy: 'true' }, tasks: 2 },
      { serviceParams: { js_render: 'false' }, tasks: 3 },
    ]);
    expect(estimate).toEqual({
      tasks: 15,
      min: 10 * 5 + 2 * 25 + 3,
      max: 10 * 5 + 2 * 25 + 3,
      tasksByTier: { js_render: 10, premium_js_render: 2, basic: 3 },
    });
  });

  it('gives mode=auto the range from the cheapest tier to the dearest', () => {
    expect(estimateCredits({ mode: 'auto' }, [{ serviceParams: null, tasks: 4 }])).toEqual({
      tasks: 4,
      min: 4,
      max: 100,
      tasksByTier: { auto: 4 },
    });
  });

  it('is zero for a job without tasks', () => {
    expect(estimateCredits({}, [])).toEqual({ tasks: 0, min: 0, max: 0, tasksByTier: {} });
  });
});
