import { CodedError } from './coded-error';

enum ParcelErrorCode {
  Lost = 'lost',
}

class ParcelError extends CodedError<ParcelErrorCode> {}

class OversizedParcelError extends ParcelError {
  constructor(readonly grams: number) {
    super(ParcelErrorCode.Lost, `${grams} g is too heavy`);
  }
}

describe(CodedError.name, () => {
  it('keeps the code, the message and the cause', () => {
    const cause = new Error('socket hang up');
    const error = new ParcelError(ParcelErrorCode.Lost, 'The parcel was lost.', { cause });
    expect(error).toMatchObject({ code: 'lost', message: 'The parcel was lost.', cause });
  });

  it('is named after the class that was thrown, subclasses of subclasses included', () => {
    expect(new ParcelError(ParcelErrorCode.Lost, 'x').name).toBe('ParcelError');
    expect(new OversizedParcelError(30_000).name).toBe('OversizedParcelError');
    expect(String(new ParcelError(ParcelErrorCode.Lost, 'x'))).toBe('ParcelError: x');
  });

  it('is an Error and an instance of every class on its chain', () => {
    const error = new OversizedParcelError(30_000);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toBeInstanceOf(ParcelError);
  });
});
