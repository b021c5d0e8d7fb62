import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { boot } from './state/actions/boot';
import './styles/theme.css';
import './styles/layout.css';
import './styles/components.css';
import './styles/screens.css';
import './styles/notifications.css';

const root = document.getElementById('root');
if (!root) throw new Error('#root element missing from index.html');

void boot();
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
