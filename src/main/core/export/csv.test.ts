import { describe, expect, it } from 'vitest';
import { centsToDecimal, toCsv } from './csv';

describe('CSV export', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['=SUM(A1)', null], [-5, 'line\nbreak']])).toBe(
      'a,b\r\n"x,y","say ""hi"""\r\n\'=SUM(A1),\r\n-5,"line\nbreak"\r\n',
    );
  });

  it('keeps negative amounts as numbers while defusing formulas that start with a minus', () => {
    expect(toCsv(['amount'], [['-15.00'], ['-1+2'], ['-A1']])).toBe("amount\r\n-15.00\r\n'-1+2\r\n'-A1\r\n");
  });

  it('writes cents as decimals', () => {
    expect(centsToDecimal(123456)).toBe('1234.56');
    expect(centsToDecimal(-5)).toBe('-0.05');
    expect(centsToDecimal(0)).toBe('0.00');
  });
});
