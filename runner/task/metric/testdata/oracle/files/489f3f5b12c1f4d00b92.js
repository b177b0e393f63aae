// Mozilla User Preferences

user_pref("mail.identity.id1.auto_quote", false);
