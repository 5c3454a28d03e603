export { applyRecipe } from './apply-recipe';
