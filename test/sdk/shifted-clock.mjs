// Preloaded into a service process (NODE_OPTIONS=--import …) to run its clock CLOCK_SHIFT_MS
// ahead: the token tests' way to reach a token's expiry without waiting its 600 s.
const shift = Number(process.env.CLOCK_SHIFT_MS ?? 0);
const RealDate = Date;

class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + shift);
    else super(...args);
  }

  static now() {
    return RealDate.now() + shift;
  }
}

globalThis.Date = ShiftedDate;
