import { describe, expect, it } from 'vitest';
import { centsToDecimal, toCsv } from './csv';

describe('CSV export', () => {
  it('quotes what needs quoting and defuses formulas', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', 'say "hi"'],
          ['=SUM(A1)', null],
          [-5, 'line\nbreak'],
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n\'=SUM(A1),\r\n-5,"line\nbreak"\r\n');
  });

  it('keeps negative amounts as numbers while defusing formulas that start with a minus', () => {
    expect(toCsv(['amount'], [['-15.00'], ['-1+2'], ['-A1']])).toBe("amount\r\n-15.00\r\n'-1+2\r\n'-A1\r\n");
  });

  it('defuses a formula behind a leading tab or carriage return (spreadsheets drop them and run the rest)', () => {
    expect(toCsv(['name'], [['\t=HYPERLINK("http://x.example","y")'], ['\r=1+1'], ['\t'], ['\r\n@SUM(A1)']])).toBe(
      'name\r\n"\'\t=HYPERLINK(""http://x.example"",""y"")"\r\n"\'\r=1+1"\r\n\'\t\r\n"\'\r\n@SUM(A1)"\r\n',
    );
    // Inside a field they stay as they are.
    expect(toCsv(['name'], [['AK-47\t| Redline'], ['a\r=b']])).toBe('name\r\nAK-47\t| Redline\r\n"a\r=b"\r\n');
  });

  it('writes cents as decimals', () => {
    expect(centsToDecimal(123456)).toBe('1234.56');
    expect(centsToDecimal(-5)).toBe('-0.05');
    expect(centsToDecimal(0)).toBe('0.00');
  });
});
