// Mozilla User Preferences

user_pref("mail.identity.id1.htmlSigText", "Anonym\\nXYZ Lab");
