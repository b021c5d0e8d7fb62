/** The handful of line icons the app uses (inline SVG, currentColor). */
const PATHS: Record<string, string> = {
  catalog: 'M3 4h14M3 8h14M3 12h14M3 16h9',
  trades: 'M4 7h11l-3-3M16 13H5l3 3',
  wallet: 'M3 6h13a1 1 0 011 1v9a1 1 0 01-1 1H4a1 1 0 01-1-1V5a1 1 0 011-1h10M13 11.5h2',
  alerts: 'M10 3a4 4 0 014 4v3l1.5 3h-11L6 10V7a4 4 0 014-4zM8.5 15.5a1.5 1.5 0 003 0',
  notifications: 'M4 4h12v9H8l-4 3zM7 7.5h6M7 10h4',
  operations: 'M3 16h14M5 16V9M9 16V5M13 16v-5M17 16V8',
  settings:
    'M10 7a3 3 0 110 6 3 3 0 010-6zM10 2v2M10 16v2M2 10h2M16 10h2M4.3 4.3l1.4 1.4M14.3 14.3l1.4 1.4M4.3 15.7l1.4-1.4M14.3 5.7l1.4-1.4',
  refresh: 'M16 10a6 6 0 11-1.8-4.3M16 3v3.5h-3.5',
  search: 'M8.5 3a5.5 5.5 0 110 11 5.5 5.5 0 010-11zM12.5 12.5L17 17',
  command: 'M7 7h6v6H7zM7 7V5a2 2 0 10-2 2h2M13 7V5a2 2 0 112 2h-2M7 13v2a2 2 0 11-2-2h2M13 13v2a2 2 0 102-2h-2',
  download: 'M10 3v10M6 9l4 4 4-4M4 16h12',
  close: 'M5 5l10 10M15 5L5 15',
  plus: 'M10 4v12M4 10h12',
  external: 'M11 4h5v5M16 4l-7 7M14 12v4H4V6h4',
  copy: 'M7 7h9v9H7zM4 13V4h9',
  bolt: 'M11 2L4 11h5l-1 7 7-9h-5z',
  calendar: 'M4 5h12v11H4zM4 8.5h12M7.5 3v3.5M12.5 3v3.5',
};

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16 }: { name: IconName; size?: number }) {
  return (
    <svg className="icon" viewBox="0 0 20 20" width={size} height={size} aria-hidden="true" focusable="false">
      <path
        d={PATHS[name]}
        fill="none"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
