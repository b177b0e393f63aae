package metric

import (
	"context"
	"fmt"
	"slices"
)

// metricTable lists every metric deskrun implements, family by family
// (infeasible is handled by Evaluate). A name given twice does not compile.
// Each family's comment says what its rows hold and names the file of
// their functions (TestCatalogComments keeps it so).
var metricTable = map[string]Metric{
	// Text, lists, JSON, CSV and SQL results (general.go)
	"exact_match":              {Fn: exactMatch, CheckRules: needKeys("expected")},
	"check_include_exclude":    {Fn: checkIncludeExclude, CheckRules: checkIncludeRules},
	"match_in_list":            {Fn: matchInList, CheckRules: needKeys("expected")},
	"is_in_list":               {Fn: isInList, CheckRules: needKeys("expected")},
	"literal_match":            {Fn: literalMatch, CheckOptions: checkLiteralOptions},
	"fuzzy_match":              {Fn: fuzzyMatch, CheckRules: needKeys("expected")},
	"diff_text_file":           {Fn: diffTextFile},
	"compare_text_file":        compareTextFileMetric,
	"check_list":               {Fn: checkList, CheckRules: checkListRules},
	"check_csv":                {Fn: checkCSV, CheckRules: checkCSVRules},
	"check_json":               {Fn: checkJSON, CheckOptions: checkJSONOptions, CheckRules: checkJSONRules},
	"check_direct_json_object": {Fn: checkDirectJSONObject, CheckRules: checkDirectRules},
	"file_contains":            {Fn: fileContains, CheckRules: checkFileContainsRules},
	"check_line_number":        {Fn: checkLineNumber, CheckRules: needKeys("expected")},
	"run_sqlite3":              {SandboxFn: runSQLite3, CheckRules: checkSQLRules},
	"compare_csv":              compareCsvMetric,

	// Accessibility trees (accessibility.go)
	"check_accessibility_tree": {Fn: checkAccessibilityTree, CheckRules: checkTreeRules},

	// Chrome's bookmarks (bookmarks.go)
	"is_expected_bookmarks": {Fn: isExpectedBookmarks, CheckRules: needKeys("type")},

	// Archives (archive.go)
	"compare_archive":   {Fn: withDeadline(compareArchive), CheckOptions: checkArchiveOptions},
	"compare_zip_files": {Fn: withDeadline(compareZipFiles), CheckOptions: anyOptions},

	// Audio (audio.go)
	"compare_audios": compareAudiosMetric,

	// Chrome's tabs, pages and profile (chrome.go)
	"is_expected_active_tab":             {Fn: isExpectedActiveTab, CheckRules: checkURLRule("url")},
	"is_expected_active_tab_approximate": {Fn: isExpectedActiveTabApproximate, CheckRules: checkURLRule("url")},
	"is_expected_tabs":                   {Fn: isExpectedTabs, CheckRules: checkURLRule("urls")},
	"is_expected_url_pattern_match":      {Fn: isExpectedURLPatternMatch, CheckRules: checkPatternRules},
	"is_expected_search_query":           {Fn: isExpectedSearchQuery, CheckRules: checkSearchQueryRules},
	"is_expected_installed_extensions":   {Fn: isExpectedInstalledExtensions, CheckRules: checkStringsRule("expected")},
	"is_cookie_deleted":                  {Fn: isCookieDeleted, CheckRules: checkTypedRules("domains", "domains")},
	"check_history_deleted":              {Fn: checkHistoryDeleted, CheckRules: checkTypedRules("keywords", "keywords")},
	"check_enabled_experiments":          {Fn: checkEnabledExperiments, CheckRules: checkTypedRules("names", "names")},
	"is_shortcut_on_desktop":             {Fn: isShortcutOnDesktop, CheckRules: checkShortcutRules},
	"check_font_size":                    {Fn: checkFontSize, CheckRules: checkFontSizeRules},
	"is_added_to_steam_cart":             {Fn: isAddedToSteamCart, CheckRules: checkStringsRule("items")},

	// Writer documents (docx.go)
	"compare_docx_files":                      compareDocxFilesMetric,
	"compare_docx_tables":                     {Fn: withDeadline(compareDocxTables)},
	"compare_line_spacing":                    {Fn: withDeadline(compareLineSpacing)},
	"compare_insert_equation":                 {Fn: withDeadline(compareInsertEquation)},
	"compare_font_names":                      {Fn: withDeadline(compareFontNames), CheckRules: needKeys("font_name")},
	"compare_subscript_contains":              {Fn: withDeadline(compareSubscriptContains)},
	"has_page_numbers_in_footers":             {Fn: hasPageNumbersInFooters, ExpectedOptional: true},
	"is_first_line_centered":                  {Fn: isFirstLineCentered, ExpectedOptional: true},
	"check_tabstops":                          {Fn: withDeadline(checkTabstops), CheckOptions: anyOptions},
	"compare_contains_image":                  {Fn: withDeadline(compareContainsImage)},
	"evaluate_colored_words_in_tables":        {Fn: withDeadline(evaluateColoredWordsInTables), CheckOptions: anyOptions},
	"check_highlighted_words":                 {Fn: withDeadline(checkHighlightedWords)},
	"evaluate_strike_through_last_paragraph":  {Fn: withDeadline(evaluateStrikeThroughLastParagraph)},
	"check_italic_font_size_14":               {Fn: withDeadline(checkItalicFontSize14)},
	"find_default_font":                       {Fn: withDeadline(findDefaultFont), CheckRules: needKeys("font_name")},
	"contains_page_break":                     {Fn: containsPageBreak, ExpectedOptional: true},
	"compare_docx_lines":                      {Fn: withDeadline(compareDocxLines)},
	"compare_init_lines":                      {Fn: withDeadline(compareInitLines)},
	"compare_unique_train_records":            {Fn: withDeadline(compareUniqueTrainRecords), CheckOptions: anyOptions},
	"compare_docx_files_and_ignore_new_lines": {Fn: withDeadline(compareDocxFilesIgnoreNewLines), CheckOptions: anyOptions},
	"compare_docx_images":                     {Fn: withDeadline(compareDocxImages)},
	"compare_highlighted_text":                {Fn: withDeadline(compareHighlightedText)},
	"compare_references":                      {Fn: withDeadline(compareReferences), CheckOptions: anyOptions},

	// EPUB books (epub.go)
	"compare_epub": {Fn: compareEpub},

	// GIMP's edits of images (gimp.go)
	"check_structure_sim_resized":                 {Fn: checkStructureSimResized},
	"check_saturation_increase_and_structure_sim": {Fn: checkSaturationIncrease},
	"check_triangle_position":                     {Fn: checkTrianglePosition, ExpectedOptional: true},
	"check_structure_sim_with_threshold":          {Fn: checkStructureSimWithThreshold, CheckOptions: checkSSIMThresholdOptions},
	"check_sharper":                               {Fn: checkSharper},

	// HTML pages (html.go)
	"compare_htmls": {Fn: compareHTMLs, CheckOptions: checkHTMLOptions},

	// Images (image.go)
	"compare_images":                              compareImagesMetric,
	"check_structure_sim":                         {Fn: checkStructureSim},
	"check_brightness_decrease_and_structure_sim": {Fn: checkBrightnessDecrease, CheckOptions: checkThresholdOption},
	"check_contrast_increase_and_structure_sim":   {Fn: checkContrastIncrease},
	"check_file_exists_and_structure_sim":         {Fn: checkFileExistsAndStructureSim},
	"check_palette_and_structure_sim":             {Fn: checkPaletteAndStructureSim},
	"check_image_mirror":                          {Fn: checkImageMirror},
	"check_image_size":                            {Fn: checkImageSize},
	"check_image_file_size":                       {Fn: checkImageFileSize, CheckRules: needKeys("max_size")},
	"check_textbox_on_leftside":                   {Fn: checkTextboxOnLeftside, ExpectedOptional: true},
	"check_green_background":                      {Fn: checkGreenBackground},
	"compare_image_list":                          {Fn: compareImageList},

	// MP3 tags (media.go)
	"check_mp3_meta": {Fn: checkMP3Meta, CheckRules: checkMP3Rules},

	// Math, speed tests and HTML backgrounds (misc.go)
	"fuzzy_place_math":                  {Fn: withDeadline(fuzzyPlaceMath), CheckRules: checkPlaceRules},
	"compare_time_in_speedtest_results": {Fn: compareSpeedtestTime},
	"check_html_background_image":       {Fn: checkHTMLBackgroundImage, CheckRules: needKeys("value")},

	// Text in images (ocr.go)
	"compare_image_text": {Fn: compareImageText, CheckRules: checkImageTextRules},

	// GNOME's panel (panel.go)
	"check_left_panel": {Fn: checkLeftPanel, ExpectedOptional: true},

	// PDFs (pdf.go)
	"compare_pdfs":       comparePdfsMetric,
	"check_pdf_pages":    {Fn: withDeadline(checkPDFPages), CheckRules: checkPDFPagesRules},
	"compare_pdf_images": {Fn: withDeadline(comparePDFImages), CheckOptions: anyOptions},

	// Impress presentations (pptx.go)
	"compare_pptx_files":                         comparePptxFilesMetric,
	"check_transition":                           {Fn: withDeadline(checkTransition), CheckRules: needKeys("slide_idx", "transition_type")},
	"evaluate_presentation_fill_to_rgb_distance": {Fn: withDeadline(presentationFillDistance), CheckRules: needKeys("rgb")},
	"check_page_number_colors":                   {Fn: withDeadline(checkPageNumberColors), CheckRules: needKeys("color")},
	"check_auto_saving_time":                     {Fn: withDeadline(checkAutoSavingTime), CheckRules: needKeys("minutes")},
	"check_presenter_console_disable":            {Fn: withDeadline(checkPresenterConsoleDisable), ExpectedOptional: true},
	"check_image_stretch_and_center":             {Fn: withDeadline(checkImageStretchAndCenter)},
	"check_slide_orientation_Portrait":           {Fn: withDeadline(checkSlideOrientationPortrait), ExpectedOptional: true},

	// Python test suites (python.go)
	"check_python_file_by_test_suite": {Fn: checkPythonTestSuite, CheckOptions: checkTestSuiteOptions},

	// Settings of VS Code, Thunderbird and GNOME, and files they leave (settings.go)
	"check_json_settings":       {Fn: checkJSONSettings, CheckOptions: anyOptions, CheckRules: checkExpectedObject},
	"check_json_keybindings":    {Fn: checkJSONKeybindings, CheckOptions: anyOptions, CheckRules: needKeys("expected")},
	"compare_config":            {Fn: compareConfig, CheckOptions: anyOptions, CheckRules: needKeys("expected")},
	"is_extension_installed":    {Fn: isExtensionInstalled, CheckOptions: anyOptions, CheckRules: checkExtensionRules},
	"check_config_status":       {Fn: checkConfigStatus, CheckRules: checkConfigStatusRules},
	"check_thunderbird_prefs":   {Fn: checkThunderbirdPrefs, CheckRules: checkPrefsRules},
	"check_gnome_favorite_apps": {Fn: checkGnomeFavoriteApps, CheckRules: needKeys("expected")},
	"is_utc_0":                  {Fn: isUTC0, ExpectedOptional: true},
	"check_text_enlarged":       {Fn: checkTextEnlarged, ExpectedOptional: true},
	"check_moved_jpgs":          {Fn: checkMovedJPGs, CheckRules: needKeys("expected")},
	"is_in_vm_clickboard":       {Fn: isInVMClipboard},
	"compare_result_files":      {Fn: compareResultFiles},
	"check_thunderbird_filter":  {Fn: checkThunderbirdFilter, CheckRules: checkFilterRules},
	"check_thunderbird_folder":  {Fn: checkThunderbirdFolder, CheckOptions: anyOptions},
	"compare_python_pure_text":  {Fn: comparePythonPureText},

	// Calc spreadsheets (table.go)
	"compare_table":                    compareTableMetric,
	"compare_conference_city_in_order": {Fn: withDeadline(compareConferenceCityInOrder), CheckRules: needKeys("expected")},

	// Videos (video.go)
	"compare_videos": compareVideosMetric,

	// VLC (vlc.go)
	"is_vlc_playing":                            {Fn: isVLCPlaying, CheckRules: checkVLCPlayingRules},
	"is_vlc_recordings_folder":                  {Fn: isVLCRecordingsFolder, CheckRules: needKeys("recording_file_path")},
	"is_vlc_fullscreen":                         {Fn: isVLCFullscreen},
	"check_qt_bgcone":                           vlcrcOption("qt-bgcone", "1", "expected_qt_bgcone"),
	"check_play_and_exit":                       vlcrcOption("play-and-exit", "0", "expected_play_and_exit"),
	"check_qt_max_volume":                       vlcrcOption("qt-max-volume", "125", "expected_qt_max_volume"),
	"check_qt_minimal_view":                     vlcrcOption("qt-minimal-view", "0", "expected_qt_minimal_view"),
	"check_one_instance_when_started_from_file": vlcrcOption("one-instance-when-started-from-file", "1", "expected_one_instance_when_started_from_file"),
	"check_global_key_play_pause":               {Fn: checkGlobalKeyPlayPause, CheckRules: needKeys("expected_global_key_play_pause")},
	"check_qt_slider_colours":                   {Fn: checkQtSliderColours, CheckRules: checkSliderRules},
}

// Names returns the names of the metrics deskrun implements, sorted,
// infeasible (which the task executor grades) included.
func Names() []string {
	names := []string{"infeasible"}
	for n := range metricTable {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Lookup returns the metric of that name.
func Lookup(name string) (Metric, bool) {
	m, ok := metricTable[name]
	return m, ok
}

// Grade runs one metric on values outside a task, as `deskrun tasks
// grade` does: the options are checked as the loader checks a task's, then
// the metric scores result against expected. A metric that must run in a
// sandbox (run_sqlite3) cannot be graded this way.
func Grade(ctx context.Context, name string, result, expected any, opts map[string]any) (score float64, detail string, err error) {
	m, ok := Lookup(name)
	if !ok {
		return 0, "", fmt.Errorf("metric %q: unknown (deskrun tasks names lists them)", name)
	}
	if m.SandboxFn != nil {
		return 0, "", fmt.Errorf("metric %q runs in a sandbox and cannot be graded on local files", name)
	}
	if len(opts) > 0 {
		if m.CheckOptions == nil {
			return 0, "", fmt.Errorf("options: metric %q takes none", name)
		}
		if err := m.CheckOptions(opts); err != nil {
			return 0, "", fmt.Errorf("options: %w", err)
		}
	}
	if opts == nil {
		opts = map[string]any{}
	}
	return m.Score(ctx, nil, result, expected, opts)
}
