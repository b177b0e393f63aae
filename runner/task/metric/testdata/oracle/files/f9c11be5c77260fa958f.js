user_pref("mail.server.default.applyIncomingFilters", false);
user_pref("mail.imap.use_status_for_biff", true);
user_pref("mail.server.default.autosync_offline_stores", true);