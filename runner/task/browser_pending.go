package task

// The browser's steps and getters (Chrome DevTools, Chrome's profile)
// not implemented yet are known so that tasks using them load; a task
// using one is skipped with this reason. Their implementations
// (setup_chrome.go, getters_chrome.go) replace the entries of this file.
func init() {
	const browser = "needs the browser (Chrome DevTools and Chrome's profile), not available in this build"
	addUnavailable(map[string]string{
		"update_browse_history": browser,
	}, map[string]string{
		"chrome_font_size":                        browser,
		"chrome_language":                         browser,
		"chrome_saved_address":                    browser,
		"cookie_data":                             browser,
		"data_delete_automacally":                 browser,
		"default_search_engine":                   browser,
		"enable_do_not_track":                     browser,
		"enable_enhanced_safety_browsing":         browser,
		"enabled_experiments":                     browser,
		"extensions_installed_from_shop":          browser,
		"find_installed_extension_name":           browser,
		"find_unpacked_extension_path":            browser,
		"gotoRecreationPage_and_get_html_content": browser,
		"history":                  browser,
		"info_from_website":        browser,
		"new_startup_page":         browser,
		"number_of_search_results": browser,
		"pdf_from_url":             browser,
		"profile_name":             browser,
		"url_dashPart":             browser,
		"googledrive_file":         "needs Google Drive credentials (OSWorld's settings/googledrive), which a sandbox run cannot hold",
	})
}
