/** Every shortcut on one card: the app is meant to be driven from the keyboard. */
const GROUPS: { title: string; keys: [string[], string][] }[] = [
  {
    title: 'Anywhere',
    keys: [
      [['Ctrl', 'K'], 'Command palette'],
      [['G', '…'], 'Go to: C T W A O N S'],
      [['N'], 'Buy by name'],
      [['Esc'], 'Close'],
    ],
  },
  {
    title: 'Catalog',
    keys: [
      [['/'], 'Search'],
      [['↑', '↓'], 'Select a row'],
      [['Enter'], 'Open it'],
      [['B'], 'Buy it'],
    ],
  },
  {
    title: 'Trades and Wallet',
    keys: [[['E'], 'Export as CSV']],
  },
  {
    title: 'Alerts',
    keys: [
      [['↑', '↓'], 'Select a firing'],
      [['A'], 'Acknowledge it'],
      [['R'], 'Re-arm its rule'],
    ],
  },
];

export function ShortcutsSection() {
  return (
    <section className="panel settings-section" aria-labelledby="settings-shortcuts">
      <h2 className="panel-title" id="settings-shortcuts">
        Keyboard shortcuts
      </h2>
      <div className="shortcut-groups">
        {GROUPS.map((g) => (
          <div key={g.title} className="shortcut-group">
            <h3 className="shortcut-title">{g.title}</h3>
            <dl className="shortcuts">
              {g.keys.map(([keys, what]) => (
                <div key={`${keys.join('+')}-${what}`} className="shortcut">
                  <dt>
                    {keys.map((k) => (
                      <kbd key={k}>{k}</kbd>
                    ))}
                  </dt>
                  <dd>{what}</dd>
                </div>
              ))}
            </dl>
          </div>
        ))}
      </div>
    </section>
  );
}
