/** Every shortcut on one card: the app is meant to be driven from the keyboard. */
const GROUPS: { title: string; keys: [string[], string][] }[] = [
  {
    title: 'Anywhere',
    keys: [
      [['Ctrl', 'K'], 'Command palette'],
      [['G', 'C'], 'Go to Catalog'],
      [['G', 'T'], 'Trades (G W Wallet, G A Alerts, G S Settings)'],
      [['N'], 'Buy by name'],
      [['Esc'], 'Close the dialog or panel'],
    ],
  },
  {
    title: 'Catalog',
    keys: [
      [['/'], 'Search'],
      [['↑', '↓'], 'Move the selection (PgUp PgDn Home End)'],
      [['Enter'], 'Open the selected item'],
      [['B'], 'Buy the selected item'],
    ],
  },
  {
    title: 'Lists',
    keys: [
      [['E'], 'Export the list as CSV (Trades, Wallet)'],
      [['↑', '↓'], 'Select a firing (Alerts; J K too)'],
      [['A'], 'Acknowledge the selected firing'],
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
