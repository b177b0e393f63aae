// Mozilla User Preferences

user_pref("mail.server.default.applyIncomingFilters", true);
user_pref("mail.imap.use_status_for_biff", false);
user_pref("mail.server.default.autosync_offline_stores", false);
