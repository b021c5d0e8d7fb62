/** A WHERE clause over one merchant's rows, with the filters that have a value ANDed on, and their named parameters. */
export class MerchantWhere {
  private readonly terms = ['merchant_id = @merchantId'];
  readonly params: Record<string, string | number>;

  constructor(merchantId: string) {
    this.params = { merchantId };
  }

  /** Adds `term` with `value` bound as `@key`; nothing when the value is undefined (that filter was not asked). */
  add(term: string, key: string, value: string | number | undefined): void {
    if (value === undefined) return;
    this.terms.push(term);
    this.params[key] = value;
  }

  /** `created_at` from `from` and to `to` (ISO 8601 UTC, both inclusive), each when given. */
  createdBetween(from: string | undefined, to: string | undefined): void {
    this.add('created_at >= @from', 'from', from === undefined ? undefined : Date.parse(from));
    this.add('created_at <= @to', 'to', to === undefined ? undefined : Date.parse(to));
  }

  get clause(): string {
    return this.terms.join(' AND ');
  }
}
