import { tradeUrlOf } from '../catalog/holders';
import { hashString } from '../catalog/rng';

/** Trade URL owners of a busy merchant: players who withdraw, numbered 0..count−1. */
export class Recipients {
  /** Partner numbers are base + index, inside 32 bits, away from the catalog's holders (≤ 1,999,999,999). */
  private readonly base: number;
  private readonly urls: (string | undefined)[];

  constructor(
    merchantId: string,
    readonly count: number,
    private readonly seed: number,
  ) {
    this.base = 2_100_000_000 + (hashString(merchantId, seed) % 1_000_000_000);
    this.urls = new Array<string | undefined>(count);
  }

  partner(index: number): string {
    return String(this.base + index);
  }

  tradeUrl(index: number): string {
    let url = this.urls[index];
    if (url === undefined) {
      url = tradeUrlOf(this.base + index, this.seed);
      this.urls[index] = url;
    }
    return url;
  }
}
