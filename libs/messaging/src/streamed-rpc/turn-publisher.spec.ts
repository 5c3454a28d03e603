import { TurnPublisher } from './turn-publisher';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe(TurnPublisher.name, () => {
  it('sends nothing during the turn, then everything asked in it, in order, at its end', async () => {
    const turns = new TurnPublisher();
    const sent: number[] = [];
    for (const i of [1, 2, 3])
      turns.publish(
        () => sent.push(i),
        () => undefined,
      );
    expect(sent).toEqual([]);
    await nextTurn();
    expect(sent).toEqual([1, 2, 3]);
    turns.publish(
      () => sent.push(4),
      () => undefined,
    );
    await nextTurn();
    expect(sent).toEqual([1, 2, 3, 4]);
  });

  it('tells a publish that throws to its own failure handler and still sends the rest', async () => {
    const turns = new TurnPublisher();
    const sent: string[] = [];
    const failures: unknown[] = [];
    turns.publish(
      () => sent.push('a'),
      (error) => failures.push(['a', error]),
    );
    turns.publish(
      () => {
        throw new Error('closed');
      },
      (error) => failures.push(['b', (error as Error).message]),
    );
    turns.publish(
      () => sent.push('c'),
      (error) => failures.push(['c', error]),
    );
    await nextTurn();
    expect(sent).toEqual(['a', 'c']);
    expect(failures).toEqual([['b', 'closed']]);
  });
});
