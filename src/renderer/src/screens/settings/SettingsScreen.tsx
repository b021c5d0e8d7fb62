import { useEffect } from 'react';
import { loadRecipients } from '../../state/actions/settings';
import { BudgetSection } from './BudgetSection';
import { ConnectionSection } from './ConnectionSection';
import { ForwardingSection } from './ForwardingSection';
import { AppearanceSection, NotificationsSection } from './PreferencesSection';
import { RecipientsSection } from './RecipientsSection';
import { ReplaySection } from './ReplaySection';
import { ShortcutsSection } from './ShortcutsSection';
import { SoundsSection } from './SoundsSection';
import { UpdatesSection } from './UpdatesSection';

export function SettingsScreen() {
  useEffect(() => {
    void loadRecipients();
  }, []);
  return (
    <div className="screen settings-screen">
      <header className="screen-head">
        <div className="screen-title">
          <h1>Settings</h1>
        </div>
      </header>
      <div className="settings-body">
        <div className="settings-col">
          <ConnectionSection />
          <BudgetSection />
          <RecipientsSection />
        </div>
        <div className="settings-col narrow">
          <NotificationsSection />
          <SoundsSection />
          <ForwardingSection />
          <ReplaySection />
          <AppearanceSection />
          <UpdatesSection />
          <ShortcutsSection />
        </div>
      </div>
    </div>
  );
}
